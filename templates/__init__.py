"""fabricctl's built-in Jinja templates, one folder per platform.

They live at the top of the repository, where a fabric's own `templates/` mirrors them, and the
build maps this folder into the wheel as the package `fabricctl.templates` (pyproject.toml), so
an installed fabricctl finds them with importlib.resources like any other runtime file.
"""
