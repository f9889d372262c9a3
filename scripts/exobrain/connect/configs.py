"""Our entries in a list of an agent's JSON settings file: OpenCode's ``instructions`` in
``opencode.json``, which is how OpenCode comes to read the generated index.

The file is the user's: only the entries connect-agent makes (the paths of its generated
files) are ever added or removed, the rest of the list and every other key stay as they are,
and the list is edited in the file's own style (:mod:`exobrain.util.jsonstyle`). A file that is
not plain JSON (OpenCode also reads JSONC, with comments) is never rewritten: the action is a
skip that says which entry to add by hand. A file that held nothing but our entries goes when
they do.
"""

from __future__ import annotations

import json
from pathlib import Path

from exobrain.connect.linker import CREATE, KEEP, REMOVE, REPLACE, SKIP, Action, read_existing
from exobrain.errors import InputFileError
from exobrain.util import boundedjson
from exobrain.util.jsonstyle import locate_array, render_like, splice_array

KIND = "entry"


def plan_json_list(
    path: Path, key: str, wanted: list[str], ours: list[str], *, root: Path
) -> Action | None:
    """The action that makes the top-level list ``key`` of the JSON file at ``path`` hold
    ``wanted`` among our entries ``ours`` (the others untouched); None when there is nothing
    there and nothing wanted."""
    try:
        current = read_existing(path)
    except InputFileError as exc:
        return Action(KIND, SKIP, path, reason=exc.message, root=root)
    if current is None:
        if not wanted:
            return None
        text = json.dumps({key: wanted}, indent=2, ensure_ascii=False) + "\n"
        return Action(KIND, CREATE, path, content=text, root=root)
    try:
        data = boundedjson.loads(current)
    except ValueError:
        data = None
    listed = data.get(key, []) if isinstance(data, dict) else None
    if not isinstance(listed, list):
        if not wanted:
            return None
        entries = ", ".join(map(repr, wanted))
        reason = f"not a JSON object with a {key!r} list (comments?); add {entries} by hand"
        return Action(KIND, SKIP, path, reason=reason, root=root)
    new = [item for item in listed if item not in ours or item in wanted]
    new += [item for item in wanted if item not in listed]
    if new == listed:
        return Action(KIND, KEEP, path, root=root) if wanted else None
    if not new and set(data) == {key}:
        return Action(KIND, REMOVE, path, reason="nothing to list", root=root)
    span = locate_array(current, key)
    if span is not None:
        text = splice_array(current, span, listed, new)
    else:
        text = render_like(current, {**data, key: new})
    return Action(KIND, REPLACE, path, content=text, root=root)
