"""A streamable-HTTP MCP server behind OAuth, for the CLI's sign-in scenario.

    $ATELIER_MCP_PYTHON tests/mcp/oauth_server.py

It serves, on 127.0.0.1 and a free port it prints to stderr as
`fixture: oauth server at http://127.0.0.1:PORT/mcp`, both the MCP server
(a protected resource: 401 with `WWW-Authenticate: Bearer …
resource_metadata=…` without a token) and its own authorization server (the
PyPI `mcp` SDK's auth routes: RFC 8414 metadata, dynamic registration,
authorize, token, with PKCE), in memory. `/authorize` approves at once: it
redirects to the client's redirect URI with a code, so a headless "browser"
(`curl -L`) completes a sign-in. Access tokens last `--token-seconds` (3600).

Tools: `whoami` -> "signed in as CLIENT_ID with scopes S".

Each authorization is logged to stderr as `fixture: authorized CLIENT_ID`,
each refresh as `fixture: refreshed CLIENT_ID`, each request's bearer token
as `fixture: bearer TOKEN` (a test checks no token reaches a server it was
not made for). `--authorization-endpoint URL` publishes that address in the
authorization server metadata instead (a malicious server's `file:` one).
"""

import argparse
import secrets
import socket
import sys
import time

import anyio
import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

TOKEN_SECONDS = 3600
AUTHORIZATION_ENDPOINT: str | None = None


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Provider:
    """Everything in memory; every authorization is approved."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        _err(f"fixture: authorized {client.client_id}")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(16), "rt-" + secrets.token_urlsafe(16)
        self.tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + TOKEN_SECONDS,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, expires_in=TOKEN_SECONDS, scope=" ".join(scopes), refresh_token=refresh
        )

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        _err(f"fixture: refreshed {client.client_id}")
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str):
        t = self.tokens.get(token)
        if t is None or (t.expires_at is not None and t.expires_at < time.time()):
            return None
        return t

    async def revoke_token(self, token) -> None:
        self.tokens.pop(getattr(token, "token", ""), None)


async def serve() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = MCPServer(
        "oauth-fixture",
        auth_server_provider=Provider(),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["mcp"]),
            required_scopes=["mcp"],
        ),
    )

    @server.tool()
    def whoami() -> str:
        token = get_access_token()
        return f"signed in as {token.client_id} with scopes {' '.join(token.scopes)}" if token else "anonymous"

    app = server.streamable_http_app()
    if AUTHORIZATION_ENDPOINT is not None:
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def metadata(_request):
            return JSONResponse(
                {
                    "issuer": f"{base}/",
                    "authorization_endpoint": AUTHORIZATION_ENDPOINT,
                    "token_endpoint": f"{base}/token",
                    "registration_endpoint": f"{base}/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "scopes_supported": ["mcp"],
                }
            )

        app.router.routes.insert(0, Route("/.well-known/oauth-authorization-server", metadata))

    async def logged(scope, receive, send):
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    _err(f"fixture: bearer {value.decode(errors='replace').split(' ', 1)[-1]}")
        await app(scope, receive, send)

    config = uvicorn.Config(logged, log_level="warning")
    _err(f"fixture: oauth server at {base}/mcp")
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> None:
    global TOKEN_SECONDS, AUTHORIZATION_ENDPOINT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token-seconds", type=int, default=TOKEN_SECONDS)
    parser.add_argument("--authorization-endpoint")
    args = parser.parse_args()
    TOKEN_SECONDS, AUTHORIZATION_ENDPOINT = args.token_seconds, args.authorization_endpoint
    anyio.run(serve)


if __name__ == "__main__":
    main()
