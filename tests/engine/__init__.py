"""Tests of the rules engine (``gotown.engine``) against ``shared/rules/RULES.md``."""
