"""How a round asks for tools: native function calling, the classic text format, auto mode
between them, and how calls are read, run and their errors told back to the model."""
