"""A model server's reply is read within a bound on its decoded size (`ISODYN_MAX_REPLY_MB`, 32 MB).

A server can send a small compressed body that inflates to gigabytes (3 MB of gzip is 3 GB of
text); httpx would inflate it whole before the SDK sees it. litellm hands the OpenAI SDK the
`litellm.aclient_session` client when one is set (for `openai/`, `azure/` and an `api_base`
server, replicas included), so isodyn sets it to a `BoundedReplyClient` around the client litellm
would have used: the body is read raw and inflated here a piece at a time with zlib's
`max_length`, so no more than the bound is ever held, and a reply past the bound ends the call with
`ReplyTooLarge` (the cell's reason is error:reply_too_large, not retried). A file downloaded through the same
client (a batch's output, `.../files/{id}/content`) is a data file: it has the data-file bound
(`ISODYN_MAX_FILE_MB`, 256 MB).

Other providers (Anthropic's or Google's own APIs) go through litellm's own HTTP handler, which
does not read this session: their replies are not bounded here.

An httpx client is tied to the event loop that opened its connections, so there is one per loop.
"""

from __future__ import annotations

import asyncio
import weakref
import zlib
from typing import Any

import httpx

from isodyn.datasets.contained import limits

# Encodings read here; anything else (br, zstd, ...) could not be inflated within a bound by zlib.
ACCEPTED_ENCODINGS = "gzip, deflate"


# Not an IsodynError: recorded as a cell's reason (error:reply_too_large), never shown as one.
class ReplyTooLarge(RuntimeError):
    """A reply body larger, decoded, than the bound (or in an encoding that cannot be bounded)."""


def _inflater(encoding: str, first: bytes) -> Any:
    """A zlib decompressor for the body's Content-Encoding (None for identity)."""
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if encoding == "deflate":  # properly zlib-wrapped, though some servers send raw deflate
        wrapped = len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] << 8 | first[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
    raise ReplyTooLarge(f"the reply is encoded as {encoding!r}; isodyn reads only {ACCEPTED_ENCODINGS}")


def _over(limit: int) -> ReplyTooLarge:
    return ReplyTooLarge(f"the reply body is over {limit:,} bytes decoded (the bound; ISODYN_MAX_REPLY_MB "
                         "raises it, ISODYN_MAX_FILE_MB for a downloaded file)")  # fmt: skip


async def read_bounded(response: httpx.Response, limit: int) -> bytes:
    """The response's body, decoded, refused with ReplyTooLarge past `limit` bytes: each raw piece
    is inflated to at most one byte more than the room left, so memory stays within the bound."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    parts: list[bytes] = []
    size = 0
    inflater: Any = ...
    try:
        async for raw in response.aiter_raw():
            if inflater is ...:
                inflater = _inflater(encoding, raw)
            piece = raw if inflater is None else inflater.decompress(raw, limit - size + 1)
            size += len(piece)
            if size > limit:
                raise _over(limit)
            parts.append(piece)
        if inflater not in (None, ...):
            piece = inflater.flush()
            size += len(piece)
            if size > limit:
                raise _over(limit)
            parts.append(piece)
    except zlib.error as exc:
        raise httpx.DecodingError(f"the reply's {encoding} body does not inflate: {exc}") from exc
    return b"".join(parts)


class BoundedReplyClient(httpx.AsyncClient):
    """What the OpenAI SDK is given: requests go out through `inner` (the client litellm would
    have used, its transport, proxies and TLS settings), and replies are read (and inflated) here
    within `limit` bytes. A streamed request (`stream=True`, which isodyn never makes) is handed
    back unread."""

    def __init__(self, inner: httpx.AsyncClient, limit: int, file_limit: int) -> None:
        super().__init__(headers={"Accept-Encoding": ACCEPTED_ENCODINGS})  # the SDK builds requests here
        self.inner = inner
        self.limit = limit
        self.file_limit = file_limit

    async def send(self, request: httpx.Request, *, stream: bool = False, **kwargs: Any) -> httpx.Response:
        response = await self.inner.send(request, stream=True, **kwargs)
        if stream:
            return response
        try:
            is_file = request.url.path.rstrip("/").endswith("/content")
            body = await read_bounded(response, self.file_limit if is_file else self.limit)
        finally:
            await response.aclose()
        framing = ("content-encoding", "content-length", "transfer-encoding")  # of the body as sent
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in framing]
        read = httpx.Response(
            response.status_code,
            headers=headers,
            content=body,
            request=request,
            extensions=response.extensions,
            history=response.history,
            default_encoding=response.default_encoding,
        )
        read.elapsed = response.elapsed
        return read

    async def aclose(self) -> None:
        await self.inner.aclose()
        await super().aclose()


def _litellm_client(litellm: Any) -> httpx.AsyncClient:
    """The client litellm builds for the OpenAI SDK when no session is set: its transport is
    aiohttp's where installed, about 1.5x the calls per second of httpx's own on loopback. httpx's
    own (with the SDK's connection limits) in a litellm without that function."""
    saved, litellm.aclient_session = litellm.aclient_session, None
    try:
        from litellm.llms.openai.common_utils import BaseOpenAILLM

        client = BaseOpenAILLM.get_async_http_client()
    except (ImportError, AttributeError):
        client = None
    finally:
        litellm.aclient_session = saved
    if isinstance(client, httpx.AsyncClient):
        return client
    return httpx.AsyncClient(
        follow_redirects=True, limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100)
    )


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BoundedReplyClient] = (
    weakref.WeakKeyDictionary()
)


def bounded_session(litellm: Any) -> BoundedReplyClient:
    """The running loop's client, made on first use with the bounds then in force."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None or client.is_closed:
        bounds = limits()
        client = BoundedReplyClient(_litellm_client(litellm), bounds.reply_bytes, bounds.file_bytes)
        _clients[loop] = client
    return client


def bound_replies(litellm: Any) -> None:
    """Have litellm's OpenAI-compatible calls on this loop read replies through the bounded client.
    litellm keeps the SDK client it builds (per loop) around this session for later calls."""
    litellm.aclient_session = bounded_session(litellm)
