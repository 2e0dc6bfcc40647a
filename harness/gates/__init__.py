"""CI gates: rules a finished run or sweep must pass, or ``harness`` exits with status 3."""
