# Configuration for the lantern guide.
project = "Lantern Making"
extensions = ["myst_parser"]
myst_enable_extensions = ["substitution", "colon_fence"]
myst_substitutions = {
    "wick": "braided cotton wick",
    'fuel': 'lamp oil',
}
