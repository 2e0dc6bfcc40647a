"""Routers (``conf/router/``): pick a route per question (seed 001). Route scoring is in
:mod:`harness.metrics.routes`."""
