"""The frozen binary gives child processes (exec credential plugins) the user's library path back."""

from kubectl_kueue_dra.frozen import restore_child_environment


def test_not_frozen_changes_nothing():
    env = {"LD_LIBRARY_PATH": "/bundle", "LD_LIBRARY_PATH_ORIG": "/usr/local/lib"}
    assert restore_child_environment(env, frozen=False) == {}
    assert env == {"LD_LIBRARY_PATH": "/bundle", "LD_LIBRARY_PATH_ORIG": "/usr/local/lib"}


def test_original_value_comes_back():
    env = {"LD_LIBRARY_PATH": "/tmp/_MEI1:/usr/local/lib", "LD_LIBRARY_PATH_ORIG": "/usr/local/lib",
           "PATH": "/usr/bin"}
    changed = restore_child_environment(env, frozen=True)
    assert env == {"LD_LIBRARY_PATH": "/usr/local/lib", "PATH": "/usr/bin"}
    assert changed == {"LD_LIBRARY_PATH": "/usr/local/lib"}


def test_variable_the_user_did_not_have_is_removed():
    env = {"LD_LIBRARY_PATH": "/opt/kubectl-kueue_dra/_internal", "HOME": "/home/user"}
    assert restore_child_environment(env, frozen=True) == {"LD_LIBRARY_PATH": None}
    assert env == {"HOME": "/home/user"}


def test_aix_libpath_too():
    env = {"LIBPATH": "/bundle:/usr/lib", "LIBPATH_ORIG": "/usr/lib"}
    restore_child_environment(env, frozen=True)
    assert env == {"LIBPATH": "/usr/lib"}


def test_empty_original_is_kept_empty():
    env = {"LD_LIBRARY_PATH": "/bundle", "LD_LIBRARY_PATH_ORIG": ""}
    restore_child_environment(env, frozen=True)
    assert env == {"LD_LIBRARY_PATH": ""}
