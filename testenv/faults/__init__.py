"""Faults put between the plugin and a real API server: a proxy that drops, delays, throttles or
expires requests (proxy), and API Priority and Fairness objects that make the server throttle (apf)."""
