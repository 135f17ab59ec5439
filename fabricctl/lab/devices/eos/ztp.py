"""EOS zero-touch provisioning: the boot file is a `#!/usr/bin/Cli -p2` script whose
`copy <url> flash:startup-config` downloads the startup-config; the switch then reboots with it.
Anything else in a script is refused, as a switch would."""

from __future__ import annotations

from collections.abc import Callable

SHEBANG = "#!/usr/bin/Cli -p2"


def ztp_boot(url: str, text: str, fetch: Callable[[str], str]) -> tuple[str, bool]:
    """The startup-config the script installs (the switch reboots into it)."""
    if not text.startswith(SHEBANG):
        raise ValueError(f"{url}: not a boot script ({SHEBANG} missing)")
    startup = None
    for line in text.splitlines()[1:]:
        words = line.split()
        if not words or words == ["enable"] or words == ["exit"]:
            continue
        if len(words) == 3 and words[0] == "copy" and words[2] == "flash:startup-config":
            startup = fetch(words[1])
            continue
        raise ValueError(f"{url}: the lab runs only enable/copy <url> flash:startup-config, not {line!r}")
    if startup is None:
        raise ValueError(f"{url}: the script installs no startup-config")
    return startup, True
