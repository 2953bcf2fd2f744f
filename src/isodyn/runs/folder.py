"""A run folder as one object: where each of its files is (names in `files`), each read as its type,
and the writes that must not leave half a file.

The modules of `runs/` each know one file (`results`, `summary`, `saved_config`, `marks`,
`judgements`, ...); `RunFolder` puts them together, so code outside `runs/` asks the folder for a
path or a typed read instead of spelling a file's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.errors import ConfigError
from isodyn.runs import files
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.judgements import JudgementsRead, read_judgements
from isodyn.runs.marks import MarksRead, read_marks
from isodyn.runs.results import Run, read_json, read_results
from isodyn.runs.saved_config import saved_config
from isodyn.runs.summary import RunSummary, read_summary


@dataclass(frozen=True)
class RunFolder:
    """A run's folder (it need not exist yet: the paths are only paths until a file is read)."""

    path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    @property
    def name(self) -> str:
        return self.path.name

    # --- where each file is ------------------------------------------------------------------------
    @property
    def results_file(self) -> Path:
        return self.path / files.RESULTS

    @property
    def damaged_file(self) -> Path:
        return self.path / files.DAMAGED

    @property
    def summary_file(self) -> Path:
        return self.path / files.SUMMARY

    @property
    def config_file(self) -> Path:
        return self.path / files.CONFIG

    @property
    def log_file(self) -> Path:
        return self.path / files.LOG

    @property
    def lock_file(self) -> Path:
        return self.path / files.LOCK

    @property
    def study_file(self) -> Path:
        return self.path / files.STUDY

    @property
    def batches_file(self) -> Path:
        return self.path / files.BATCHES

    @property
    def marks_file(self) -> Path:
        return self.path / files.MARKS

    @property
    def judgements_file(self) -> Path:
        return self.path / files.JUDGEMENTS

    @property
    def verdicts_file(self) -> Path:
        return self.path / files.VERDICTS

    @property
    def report_file(self) -> Path:
        return self.path / files.REPORT

    @property
    def report_html_file(self) -> Path:
        return self.path / files.REPORT_HTML

    @property
    def figures(self) -> Path:
        return self.path / files.FIGURES

    # --- its files, read as their types ----------------------------------------------------------
    def config(self) -> ExperimentConfig:
        """The settings that made the run; ConfigError when config.json is missing, damaged or holds
        a setting this isodyn does not know."""
        data = read_json(self.config_file)
        if not isinstance(data, dict):
            raise ConfigError(f"{self.config_file}: no readable settings (missing or damaged)")
        return saved_config(data, str(self.config_file))

    def summary(self) -> RunSummary | None:
        """The run's summary, or None when it has none or it is damaged."""
        return read_summary(self.path)

    def results(self, repair: bool = False, missing_ok: bool = False) -> Run:
        """Its rows as records (`results.read_results`), with the config and summary read beside."""
        return read_results(self.path, repair=repair, missing_ok=missing_ok)

    def marks(self) -> MarksRead:
        return read_marks(self.path)

    def judgements(self) -> JudgementsRead:
        return read_judgements(self.judgements_file)

    def cache_dir(self) -> Path | None:
        """The cache the run used, as its config.json names it (None: no readable config)."""
        data = read_json(self.config_file)
        value = data.get("cache_dir") if isinstance(data, dict) else None
        return Path(value) if isinstance(value, str) and value else None

    def is_complete(self) -> bool:
        """Finished, by its summary; a missing or damaged summary (a crash while writing it) is not."""
        summary = self.summary()
        return summary is not None and summary.complete

    # --- writes that leave a whole file or none ------------------------------------------------------
    def write_summary(self, summary: RunSummary) -> None:
        write_atomic(self.summary_file, summary.to_text().encode())

    def write_config(self, data: bytes) -> None:
        write_atomic(self.config_file, data)
