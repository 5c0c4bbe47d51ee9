"""What the printers need from the layers below them: the text of a template file (``kube``),
and the amount of a quantity, so that ``--sort-by`` orders ``512Mi`` before ``4Gi`` as kubectl's
sorter does (``dra.quantity``)."""

from __future__ import annotations

from typing import Any


def template_file(path: str, output_format: str) -> str:
    from ..kube.files import read_flag_file

    return read_flag_file(path, f"-o {output_format}")


def quantity_amount(text: str) -> Any:
    """The quantity's exact amount, or None when ``text`` is no quantity."""
    from ..dra.quantity import parse_quantity
    from ..dra.quantity_value import QuantityError

    try:
        return parse_quantity(text)
    except (QuantityError, ValueError, TypeError):
        return None


def watch_timeout(value: str | None) -> float | None:
    """``explain --watch --timeout``: seconds, or None (until interrupted)."""
    from ..k8s.duration import duration

    return None if value is None else duration(value, "--timeout", 0.0) or None
