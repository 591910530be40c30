"""The static files the project ships, each with its licence: ``fonts/`` (the faces of ``render.fonts``).

This folder is installed as the package ``render.assets`` (pyproject.toml maps it), so its files are package data of
the wheel as of the editable install; read them through ``importlib.resources.files("render.assets")``, never by a
path relative to the repository.
"""
