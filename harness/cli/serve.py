"""``harness serve``: the embedded SmolLM2-135M-Instruct behind ``transformers serve`` on loopback.

    harness serve [--port PORT] [--host 127.0.0.1] [--device cpu]

Writes the model once per machine into the model cache as a Hugging Face folder
(``$HARNESS_MODEL_CACHE``, see :mod:`harness.serving`), starts the OpenAI-compatible server on it,
waits until it answers, prints the overrides that point the API generator and judge at it, and
serves until stopped (Ctrl-C).
"""

from __future__ import annotations

import argparse
import signal
import sys

from harness.serving import LOCAL_KEY_ENV, embedded_model, servable_folder, start


def overrides(base_url: str, model: str) -> str:
    """The command line that runs the demo against the server, generator and judge alike."""
    return (f"harness dataset=demo generator=openai generator.base_url={base_url} generator.model={model} "
            f"generator.api_key_env={LOCAL_KEY_ENV} judge=openai judge.base_url={base_url} "
            f"judge.model={model} judge.api_key_env={LOCAL_KEY_ENV}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback)")
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda:0, auto... (default: cpu)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the first answer")
    args = parser.parse_args(argv)
    try:
        folder = servable_folder(*embedded_model())
        server = start(folder, host=args.host, port=args.port, device=args.device, timeout=args.timeout)
    except (ValueError, RuntimeError) as err:
        print(f"harness serve: {err}", file=sys.stderr)
        return 2
    print(f"serving {folder}\n  generator.base_url={server.base_url}\n  generator.model={server.model}\n"
          f"  server log: {server.log}\nthe key is not checked, but the SDKs need one:\n"
          f"  export {LOCAL_KEY_ENV}=local\n  {overrides(server.base_url, server.model)}\n"
          f"Ctrl-C stops it.", flush=True)
    # Ctrl-C, and kill (SIGTERM), stop the server too: it runs in a process group of its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return server.process.wait()
    except KeyboardInterrupt:
        server.stop()
        return 130


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
