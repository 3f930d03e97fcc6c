"""Baseline metrics (BLEU, ROUGE-L, CodeBERTScore) as ClueStudio metric plugins."""
