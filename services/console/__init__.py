"""The console: a web application for staff (operators, support, auditors) over the services' gRPC APIs.

It reads and acts only through the services' admin APIs with a short operator token minted
per signed-in member of staff, never through a store (docs/design.md, "The console").
"""
