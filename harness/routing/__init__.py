"""Routes (seed 001): routers that pick a route per question, and route-aware scoring."""
