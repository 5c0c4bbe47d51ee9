"""The ``verify`` checklist: facts gathered once (``facts``), pure checks over them (``gates``,
``devices``, ``quota``, ``namespaces``), and the run that selects and orders them (``run``)."""
