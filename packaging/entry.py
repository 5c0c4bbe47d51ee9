"""Entry script of the frozen binary: the same entry point as the ``kubectl-kueue_dra`` console
script."""

from kubectl_kueue_dra.cli import run

if __name__ == "__main__":
    run()
