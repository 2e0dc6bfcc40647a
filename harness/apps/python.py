"""``app=python``: a function of yours, called with each question and ``app.params``.

``app.target`` names it as ``package.module:function`` (or ``package.module.function``); like
any ``_target_`` outside the harness it must be a declared plugin (``plugins.allowed_targets``).
It is called as ``function(question, **params)`` and returns what :mod:`harness.apps.replies`
reads. Its replies are cached by the source of its module (edit the code: asked again), unless
``app.version`` is declared. With ``trace`` (``app=python_traced``), contexts it does not return are
read from the RETRIEVER spans of the MLflow trace it writes itself
(:class:`harness.tracking.mlflow.app_traces.TraceContexts`).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import threading
from typing import Any

from harness.apps.base import App
from harness.config.allowlist import OWN_PACKAGES, TargetNotAllowed, is_allowed
from harness.data.records import Question


class PythonApp(App):
    def __init__(self, target: str, allowed_targets: list[str] | None = None, trace: Any = None,
                 **options: Any) -> None:
        super().__init__(**options)
        self.target, self.trace = target, trace
        dotted = target.replace(":", ".")
        # declared as app.target is written (package.module:function) or dotted: the same function
        declared = tuple(str(name).replace(":", ".") for name in allowed_targets or [])
        if dotted.startswith(OWN_PACKAGES + tuple(name for name in declared if name.endswith("."))):
            _resolve(target)  # in a declared package: a typo is named as one, not as an undeclared plugin
        if not is_allowed(dotted, OWN_PACKAGES, declared):
            raise TargetNotAllowed(f"app.target '{target}' is not a declared plugin: add it (or its package, "
                                   f"ending in '.') to plugins.allowed_targets (currently {list(declared)})")
        self.function, self.module = _resolve(target)
        self._source_sha256 = _source_sha256(self.module)

    @property
    def name(self) -> str:
        return self.target

    def code(self) -> dict[str, Any]:
        return {"app": "python", "target": self.target, "trace": self.trace is not None,
                "source_sha256": None if self.version is not None else self._source_sha256}

    def call(self, question: Question) -> Any:
        """The function's reply, or TimeoutError after ``timeout`` seconds (the call is left to finish
        on its own thread: Python cannot stop it)."""
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                ask = lambda: self.function(question.text, **self.params)  # noqa: E731
                outcome["reply"] = self.trace.capture(ask, question.id) if self.trace is not None else ask()
            except BaseException as err:  # noqa: BLE001 - handed to the asking thread
                outcome["error"] = err

        worker = threading.Thread(target=run, name=f"app {question.id}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise TimeoutError(f"no reply within app.timeout {self.timeout:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("reply")


def _resolve(target: str):
    module_name, _, attribute = target.rpartition(":") if ":" in target else target.rpartition(".")
    if not module_name or not attribute:
        raise ValueError(f"app.target must be 'package.module:function', got '{target}'")
    module = importlib.import_module(module_name)
    function = getattr(module, attribute, None)
    if not callable(function):
        raise ValueError(f"app.target '{target}': module {module_name} has no callable '{attribute}'")
    return function, module


def _source_sha256(module) -> str | None:
    try:
        path = inspect.getsourcefile(module)
    except TypeError:  # a built-in module
        return None
    if path is None:
        return None
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()
