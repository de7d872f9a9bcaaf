# Configuration file for the Sphinx documentation builder.
project = "Beekeeping Basics"
author = "The Apiary Club"
extensions = ["myst_parser"]
html_theme = "furo"
