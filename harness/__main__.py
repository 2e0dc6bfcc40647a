from harness.cli.main import cli

cli()
