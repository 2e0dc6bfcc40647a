"""``harness --help``: the page of the ``hydra/help`` config group, composed through Hydra's public API.

Hydra's own ``--help`` builds both of its config-group listings (``$APP_CONFIG_GROUPS``,
``$HYDRA_CONFIG_GROUPS``) whatever the template uses, deep-copying the config repository once per
group and option: 10-14 s here. The harness's template (conf/hydra/help/harness.yaml) lists the
groups itself (``${harness_groups:}``) and uses none of Hydra's placeholders, so the page is the
template of the composed config (``hydra.compose``), with ``$$`` read as ``$`` as Hydra's
``string.Template`` reads it. A template that does use a placeholder (a user's own
``hydra/help``) gets Hydra's own ``--help``.
"""

from __future__ import annotations

import re
import string

# Hydra's placeholders of a help template (hydra._internal.hydra.Hydra.get_help).
HYDRA_PLACEHOLDERS = re.compile(r"(?<!\$)\$\{?(FLAGS_HELP|HYDRA_CONFIG_GROUPS|APP_CONFIG_GROUPS|CONFIG)\b")


def help_page(config_dir: str, overrides: list[str]) -> str | None:
    """The help page for ``overrides``; None when the template needs Hydra's own help."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=config_dir, version_base="1.3", job_name="harness"):
        template = str(compose(config_name="config", overrides=overrides, return_hydra_config=True).hydra.help.template)
    GlobalHydra.instance().clear()
    if HYDRA_PLACEHOLDERS.search(template):
        return None
    return string.Template(template).safe_substitute()
