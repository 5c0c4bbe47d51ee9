"""Build and cache the Go binaries of the test environment (standard library only, so
``scripts/controlplane`` runs without the project's virtualenv)."""
