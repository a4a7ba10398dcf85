"""One module per rule family of docs/rules.md, each building its RuleSet and holding the
rules that are its own (who leads, what a round scores, when the match ends)."""
