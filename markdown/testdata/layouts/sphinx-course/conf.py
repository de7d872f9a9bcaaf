# Configuration of the course site.
import os

class_name = "CS 101"
semester = 'Fall'
project = f"{class_name}: Learning from Data"
version = os.environ.get("VERSION", "dev")

extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "substitution"]
myst_substitutions = {
    "class_name": class_name,
    "term": semester + " " + "2031",
    "version": version,
    "laptop": """:::{note}
Bring a laptop to every lecture of {{ class_name }}.
:::""",
}
myst_substitutions["room"] = "Hall " + 'B'
