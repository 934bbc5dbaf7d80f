"""Shared test machinery: hermetic git repositories, the checkout invariant, CLI runner."""
