"""``harness serve``: prints the overrides that reach the server, and stopping it stops the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from harness.serving import free_port

pytestmark = pytest.mark.slow


def test_harness_serve_prints_the_base_url_and_stops_its_server(served_folder):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "harness", "serve", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[0].strip() == f"serving {served_folder}", lines
        assert lines[1].strip() == f"generator.base_url=http://127.0.0.1:{port}/v1"
        model = lines[2].strip().removeprefix("generator.model=")
        assert model == served_folder.name
        reply = requests.post(f"http://127.0.0.1:{port}/v1/chat/completions", timeout=120, json={
            "model": model, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 2}).json()
        assert reply["usage"]["completion_tokens"] >= 1
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 130
        time.sleep(0.5)
        with pytest.raises(requests.ConnectionError):  # the server went with it
            requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
    finally:
        if process.poll() is None:
            process.kill()
        process.stdout.close()
