"""The libraries compared with, torch optional (the table then compares with numpy only)."""

from __future__ import annotations

try:
    import torch as torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
