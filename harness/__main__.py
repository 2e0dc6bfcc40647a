from harness.app import cli

cli()
