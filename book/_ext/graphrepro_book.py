"""A small Sphinx extension for the book: drop duplicated script tags.

sphinx-thebe adds its inline configuration script once with ``filename=None`` and once more with
``filename=''``; Sphinx keeps both, and the browser then reports "Identifier 'THEBE_JS_URL' has
already been declared" on every page.
"""

from __future__ import annotations


def _dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    seen, unique = set(), []
    for script in context.get("script_files", []):
        attributes = tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items()))
        key = (getattr(script, "filename", str(script)) or "", attributes)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    if "script_files" in context:
        context["script_files"][:] = unique


def setup(app):
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
