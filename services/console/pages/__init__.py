"""The console's pages: each module exposes `routes`, a list of Starlette routes mounted by
services/console/app.py.

A handler starts with `staff = await signed_in(request, role)` (services/console/staff.py),
calls a service with `await clients.player_admin.Method(request_pb, **clients.call_options(staff))`
(`clients = request.app.state.clients`; an AioRpcError it does not catch becomes an error page),
and answers `request.app.state.templates.TemplateResponse(request, "name.html", {...})` with a
template that extends base.html (blocks `title` and `content`); a form carries `{{ csrf_field() }}`,
and htmx requests send the CSRF header by themselves. No inline scripts or style attributes.
"""
