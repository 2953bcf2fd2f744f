"""What a failed model call was: the short reason recorded on a cell (`error_reason`, from litellm's
exception class and, for a server error, its message), whether the client refused the request before
it left (`refused_locally`), the exception chain litellm wraps, and the pause a server's Retry-After
asks for (`retry_after_seconds`).
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Iterator

from isodyn.models.bounded import ReplyTooLarge

# litellm exception class -> the short reason recorded on a cell; the most specific class wins.
_ERROR_REASONS = {
    "RateLimitError": "rate_limit",
    "AuthenticationError": "auth",
    "PermissionDeniedError": "permission",
    "ContextWindowExceededError": "context_window",
    "ContentPolicyViolationError": "content_policy",
    "NotFoundError": "not_found",
    "BadRequestError": "bad_request",
    "UnprocessableEntityError": "bad_request",
    "Timeout": "timeout",
    "TimeoutError": "timeout",
    "APIConnectionError": "connection",
    "ServiceUnavailableError": "unavailable",
    "InternalServerError": "server",
    "BadGatewayError": "server",
    "APIResponseValidationError": "malformed_reply",
    "JSONDecodeError": "malformed_reply",
    "APIError": "api",
    "EmptyReply": "empty_reply",
    "ReplicasCoolingDown": "unavailable",  # every replica of an api_base set is cooling down
}


# Not an IsodynError: retried, then recorded as a cell's reason (error:empty_reply); never shown as one.
class EmptyReply(RuntimeError):
    """A 200 whose message has no text: a transient failure, retried and never cached."""


# litellm reports a dropped connection and an unreadable body as InternalServerError; its message
# tells them apart.
_MESSAGE_REASONS = (
    (re.compile(r"Connection error|Server disconnected|ConnectError|RemoteProtocolError"), "connection"),
    (
        re.compile(r"Expecting value|JSONDecodeError|Unterminated string|Extra data|Invalid control"),
        "malformed_reply",
    ),
)


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and what it wraps (cause, context, litellm's `original_exception`)."""
    seen: set[int] = set()
    todo = [exc]
    while todo and len(seen) < 32:
        link = todo.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        todo += [e for e in (link.__cause__, link.__context__, getattr(link, "original_exception", None))
                 if isinstance(e, BaseException)]  # fmt: skip


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether `kind` is anywhere in the chain (litellm wraps what a provider raised)."""
    return any(isinstance(link, kind) for link in exception_chain(exc))


# What a client raises before a request leaves: a URL it cannot use, a header it will not send, an
# argument it rejects (litellm wraps them as a 500, which would be retried as the server's fault).
_LOCAL_CLASSES = frozenset(
    {"InvalidURL", "UnsupportedProtocol", "LocalProtocolError", "InvalidUrlClientError"}
)


def refused_locally(exc: BaseException) -> bool:
    """A litellm error caused by the client refusing the request (nothing was sent). Plain ValueError
    and TypeError only: a reply that does not parse raises their subclasses (JSONDecodeError,
    pydantic's ValidationError), and those are the server's."""
    if not type(exc).__module__.startswith("litellm"):
        return False  # raised by our own code after litellm returned: a request did leave
    return any(
        type(link) in (ValueError, TypeError) or any(c.__name__ in _LOCAL_CLASSES for c in type(link).__mro__)
        for link in exception_chain(exc)
    )


def error_reason(exc: BaseException) -> str:
    if refused_locally(exc):
        return "error:client"
    if caused_by(exc, ReplyTooLarge):  # litellm reports it as a connection error
        return "error:reply_too_large"
    for cls in type(exc).__mro__:
        if cls.__name__ in _ERROR_REASONS:
            reason = _ERROR_REASONS[cls.__name__]
            if reason in ("server", "api"):
                message = str(exc)
                reason = next((r for pattern, r in _MESSAGE_REASONS if pattern.search(message)), reason)
            return f"error:{reason}"
    return f"error:{type(exc).__name__}"


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's `Retry-After`, in seconds (a number or an HTTP date), uncapped; None when absent,
    negative, not finite or not readable: such a header is ignored, the backoff applies."""
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        try:
            items = list(dict(source).items()) if source is not None else []
        except (TypeError, ValueError):
            continue
        for name, value in items:
            if str(name).lower() == "retry-after":
                return parse_retry_after(str(value))
    return None


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:  # an HTTP date; one in the past means "now"
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            return None  # RFC 9110 dates are GMT; one without a zone is not one
        seconds = max(0.0, when.timestamp() - (time.time() if now is None else now))
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds
