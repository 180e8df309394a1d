"""A proxy.py plugin for tests/client/test_environment.py: one line per request it forwards (on
keep-alive connections too; proxy.py's own access log has a line per connection)."""

import os

from proxy.http.proxy import HttpProxyBasePlugin


class CountRequests(HttpProxyBasePlugin):
    def handle_client_request(self, request):
        with open(os.environ["PROXY_REQUEST_LOG"], "a") as log:
            log.write(f"{request.method.decode()} {request.host.decode()}:{request.port}\n")
        return request
