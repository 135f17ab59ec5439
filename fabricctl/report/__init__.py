"""Human forms of plans and run reports: text, markdown (PR comments), html.

Every function returns redacted text: the renderers are the last stop before a terminal,
a file or a PR comment.
"""
