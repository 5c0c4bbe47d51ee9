"""Terminal safety: the one place where text meant for a terminal loses what a terminal would act on.

Names, selectors and condition messages come from the cluster; an ESC or OSC sequence in one of
them would recolour, retitle or rewrite the user's terminal, a carriage return would overwrite
what came before. Every table and text line the plugin prints goes through ``safe``: C0 controls
but newline and tab, DEL, the C1 controls and the bidirectional overrides are shown as ``\\xNN``
/ ``\\uNNNN`` escapes. JSON and YAML are printed exact (their own encoders escape controls).

The plugin's own colours survive: ``Style`` writes them with ``COLOUR_ESC``, a marker no text
from the cluster can contain (it holds a random token of this process), and ``safe`` turns
only that marker back into ESC.
"""

import os
import re

# os.urandom is what secrets.token_hex reads; secrets itself would load hashlib, hmac and random
COLOUR_ESC = f"\ue000{os.urandom(8).hex()}\ue001"
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: "re.Match[str]") -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """``text`` with every control character escaped; the plugin's colour markers stay markers."""
    return _UNSAFE.sub(_escaped, text)


def measurable(text: str) -> str:
    """Escaped text whose colours are real ANSI codes, which a table layout (tabulate) measures as
    zero-width; ``marked`` turns them back into markers. Nothing from the cluster is an ESC by then."""
    return escaped(text).replace(COLOUR_ESC, "\x1b")


def marked(text: str) -> str:
    return text.replace("\x1b", COLOUR_ESC)


def safe(text: str) -> str:
    """``text`` with every control character escaped, the plugin's own colour codes kept."""
    return _UNSAFE.sub(_escaped, text).replace(COLOUR_ESC, "\x1b")


def coloured(styled: str) -> str:
    """A colour sequence the plugin made (``click.style``), marked so that ``safe`` keeps it."""
    return styled.replace("\x1b", COLOUR_ESC)
