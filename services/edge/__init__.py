"""The browsers' way in: gRPC-Web and Connect over HTTP/1.1, forwarded to the gRPC services.

A browser cannot speak gRPC (it has no access to HTTP/2 trailers), so the edge takes
gRPC-Web (binary and text) and Connect (binary) requests and forwards each, bytes unread,
to the service that owns the method (docs/design.md, "Browsers and the edge").
"""
