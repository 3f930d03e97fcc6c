"""SysMEval (seed 002): claim-level precision, recall and F1 of SysML v2 models by an LLM."""
