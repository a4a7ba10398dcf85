"""The social service: friends and blocks (docs/social.md), over gRPC (SocialService)."""
