# PyInstaller runtime hook: runs before the plugin's code. Gives child processes (exec
# credential plugins above all) the user's library search path back; see kubectl_kueue_dra/frozen.py.
import os

from kubectl_kueue_dra.frozen import restore_child_environment

restore_child_environment(os.environ)
