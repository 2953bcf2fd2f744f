"""OpenAI's files and batches API, as the loopback stub serves it (`OpenAIStub.batches`).

A batch answers each line of its input file (`custom_id`, `method`, `url`, `body`) through the stub's
script when it ends, and writes an output file (replies with status 200) and an error file (replies
the script failed with another status, and items a batch expired before answering). The objects and
lines have the shapes of the OpenAI API as the `openai` SDK types them (`openai.types.Batch`,
`FileObject`, `BatchRequestCounts`) and as litellm reads batch output (`response.status_code`,
`response.body`). What a test controls, set on `stub.batches.behaviour` (or, batch by batch, in
`next_behaviours`) before the batch is created:

- how long a batch stays `validating`, and when it ends (`finish_all()` ends every open batch now);
- whether it ends `expired`, and how many of its items were answered before that;
- whether its output file is malformed (not JSON lines).

Counters (`files_uploaded`, `batches_created`, `retrieves`, `downloads`, `cancels`) and `items`
(every request body a batch answered) let a test see what a client asked for.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from email.parser import BytesParser
from email.policy import HTTP

from isodyn.core import JsonObject

# (request body) -> (HTTP status, response body): the stub's script, as a chat completion
Answer = Callable[[JsonObject], tuple[int, JsonObject]]
Response = tuple[int, JsonObject | bytes]

FINAL = frozenset({"completed", "expired", "failed", "cancelled"})
STAMPS = (
    "in_progress_at",
    "finalizing_at",
    "completed_at",
    "failed_at",
    "expired_at",
    "cancelling_at",
    "cancelled_at",
)
EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."


@dataclass(frozen=True)
class BatchBehaviour:
    validating_s: float = 0.0  # seconds a new batch is "validating" before "in_progress"
    complete_after_s: float = 0.0  # seconds from creation until the batch ends
    expire: bool = False  # it ends "expired" instead of "completed"
    answered_before_expiry: int = 0  # items of an expiring batch answered (the rest: batch_expired)
    malformed_output: bool = False  # its output file is not JSON lines


@dataclass
class StoredFile:
    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int

    def to_json(self) -> JsonObject:
        return {
            "id": self.id, "object": "file", "bytes": len(self.data), "created_at": self.created_at,
            "filename": self.filename, "purpose": self.purpose, "status": "processed",
        }  # fmt: skip


@dataclass
class StubBatch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: JsonObject | None
    behaviour: BatchBehaviour
    started: float  # time.monotonic() at creation
    created_at: int
    lines: list[JsonObject] = field(default_factory=list)
    status: str = "validating"
    errors: list[JsonObject] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    stamps: dict[str, int] = field(default_factory=dict)  # in_progress_at, completed_at, ...

    @property
    def ends_at(self) -> float:
        return self.started + self.behaviour.complete_after_s

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": {"object": "list", "data": self.errors} if self.errors else None,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "expires_at": self.created_at + 86_400,
            **{name: self.stamps.get(name) for name in STAMPS},
            "request_counts": {"total": len(self.lines), "completed": self.completed, "failed": self.failed},
            "metadata": self.metadata,
        }


class BatchDesk:
    """The files and batch jobs of one stub; every method is safe to call from the server's threads."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self._lock = threading.Lock()
        self.behaviour = BatchBehaviour()
        self.next_behaviours: list[BatchBehaviour] = []  # for the next batches, in order; then `behaviour`
        self.files: dict[str, StoredFile] = {}
        self.batches: dict[str, StubBatch] = {}
        self.items: list[JsonObject] = []  # every request body a batch answered, in order
        self.headers: list[dict[str, str]] = []  # the headers of every files or batches request
        self.files_uploaded = 0
        self.batches_created = 0
        self.retrieves = 0
        self.downloads = 0
        self.cancels = 0

    # ---- files -----------------------------------------------------------------------------

    def upload(self, content_type: str, body: bytes) -> Response:
        fields = _multipart(content_type, body)
        if "file" not in fields or fields.get("purpose", (None, b""))[1] != b"batch":
            return 400, _error("expected multipart fields file and purpose=batch")
        filename, data = fields["file"]
        with self._lock:
            self.files_uploaded += 1
            stored = self._store(filename or "upload.jsonl", "batch", data)
        return 200, stored.to_json()

    def file(self, file_id: str) -> Response:
        with self._lock:
            stored = self.files.get(file_id)
        return (200, stored.to_json()) if stored else (404, _error(f"no file {file_id}"))

    def content(self, file_id: str) -> Response:
        with self._lock:
            stored = self.files.get(file_id)
            self.downloads += stored is not None
        return (200, stored.data) if stored else (404, _error(f"no file {file_id}"))

    def _store(self, filename: str, purpose: str, data: bytes) -> StoredFile:
        stored = StoredFile(f"file-stub-{len(self.files) + 1}", filename, purpose, data, int(time.time()))
        self.files[stored.id] = stored
        return stored

    # ---- batches ---------------------------------------------------------------------------

    def create(self, body: JsonObject) -> Response:
        with self._lock:
            source = self.files.get(str(body.get("input_file_id")))
            if source is None:
                return 404, _error(f"no file {body.get('input_file_id')}")
            self.batches_created += 1
            batch = StubBatch(
                id=f"batch_stub_{len(self.batches) + 1}", input_file_id=source.id,
                endpoint=str(body.get("endpoint")), completion_window=str(body.get("completion_window")),
                metadata=body.get("metadata"),
                behaviour=self.next_behaviours.pop(0) if self.next_behaviours else self.behaviour,
                started=time.monotonic(),
                created_at=int(time.time()),
            )  # fmt: skip
            self.batches[batch.id] = batch
            problem = _read_lines(batch, source.data)
            if problem:  # as OpenAI: a file that does not validate fails the whole batch
                batch.status, batch.errors = "failed", [problem]
                batch.stamps["failed_at"] = batch.created_at
            return 200, batch.to_json()

    def retrieve(self, batch_id: str) -> Response:
        with self._lock:
            self.retrieves += 1
            batch = self.batches.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id}")
            self._advance(batch)
            return 200, batch.to_json()

    def cancel(self, batch_id: str) -> Response:
        with self._lock:
            self.cancels += 1
            batch = self.batches.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id}")
            if batch.status not in FINAL:
                batch.status = "cancelled"
                batch.stamps["cancelled_at"] = int(time.time())
            return 200, batch.to_json()

    def finish_all(self) -> None:
        """Every open batch ends at its next retrieve (as if its time had come)."""
        with self._lock:
            for batch in self.batches.values():
                if batch.status not in FINAL:
                    batch.behaviour = replace(batch.behaviour, validating_s=0.0, complete_after_s=0.0)

    def _advance(self, batch: StubBatch) -> None:
        if batch.status in FINAL:
            return
        now = time.monotonic()
        if now - batch.started < batch.behaviour.validating_s:
            return
        if batch.status == "validating":
            batch.status = "in_progress"
            batch.stamps["in_progress_at"] = int(time.time())
        if now >= batch.ends_at:
            self._end(batch)

    def _end(self, batch: StubBatch) -> None:
        behaviour = batch.behaviour
        answered = len(batch.lines)
        if behaviour.expire:
            answered = min(behaviour.answered_before_expiry, len(batch.lines))
        outputs: list[JsonObject] = []
        errors: list[JsonObject] = []
        for number, line in enumerate(batch.lines, start=1):
            entry: JsonObject = {"id": f"batch_req_{batch.id}_{number}", "custom_id": line["custom_id"]}
            if number > answered:
                errors.append({**entry, "response": None,
                               "error": {"code": "batch_expired", "message": EXPIRED_MESSAGE}})  # fmt: skip
                continue
            self.items.append(line["body"])
            status, body = self._answer(line["body"])
            response = {"status_code": status, "request_id": f"req_{batch.id}_{number}", "body": body}
            (outputs if status == 200 else errors).append({**entry, "response": response, "error": None})
        batch.completed, batch.failed = len(outputs), len(errors)
        if outputs:
            data = b"".join(json.dumps(o).encode() + b"\n" for o in outputs)
            if behaviour.malformed_output:
                data = b'{"id": "batch_req_1", "custom_id": "' + data[:40] + b"\nthis is not JSON\n"
            batch.output_file_id = self._store(f"{batch.id}_output.jsonl", "batch_output", data).id
        if errors:
            data = b"".join(json.dumps(e).encode() + b"\n" for e in errors)
            batch.error_file_id = self._store(f"{batch.id}_error.jsonl", "batch_output", data).id
        batch.status = "expired" if behaviour.expire else "completed"
        stamp = int(time.time())
        batch.stamps.update({"finalizing_at": stamp, f"{batch.status}_at": stamp})


def _read_lines(batch: StubBatch, data: bytes) -> JsonObject | None:
    """Parse and check the input file as OpenAI does; the first problem, or None."""
    seen: set[str] = set()
    models: set[str] = set()
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            return {"code": "invalid_json_line", "message": "not JSON", "line": number}
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
            return {"code": "missing_custom_id", "message": "each line needs a custom_id", "line": number}
        if line["custom_id"] in seen:
            return {"code": "duplicate_custom_id", "message": "custom_id is not unique", "line": number}
        if line.get("method") != "POST" or line.get("url") != batch.endpoint:
            return {"code": "invalid_url", "message": f"url must be {batch.endpoint}", "line": number}
        if not isinstance(line.get("body"), dict) or not isinstance(line["body"].get("model"), str):
            return {"code": "invalid_body", "message": "body needs a model", "line": number}
        seen.add(line["custom_id"])
        models.add(line["body"]["model"])
        batch.lines.append(line)
    if len(models) > 1:
        return {"code": "mixed_models", "message": "a batch holds requests for one model", "line": None}
    if not batch.lines:
        return {"code": "empty_file", "message": "the input file holds no requests", "line": None}
    return None


def _multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (file name, bytes)."""
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    fields: dict[str, tuple[str | None, bytes]] = {}
    if not message.is_multipart():
        return fields
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = (part.get_filename(), payload)
    return fields


def _error(message: str) -> JsonObject:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}
