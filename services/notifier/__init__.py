"""The notifier: pushes what the social service stored to phones (APNs, FCM), tells a
person whose app is closed that it is their turn, and posts match results to the inbox
(docs/notifier.md)."""
