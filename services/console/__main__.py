from .bootstrap import main

main()
