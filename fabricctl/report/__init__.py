"""Human and machine forms of plans and run reports: text, markdown, json.

Every function returns redacted text: the renderers are the last stop before a terminal,
a file or a PR comment.
"""
