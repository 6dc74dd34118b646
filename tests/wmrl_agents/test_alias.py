"""The deprecated ``agents`` alias: it warns, and gives the very modules of ``wmrl_agents``."""

import subprocess
import sys


def test_agents_alias_warns_and_shares_modules():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n    import agents\nexcept DeprecationWarning as e:\n    print('warned:', e)\n"
        "warnings.simplefilter('ignore')\n"
        "import agents.trl, wmrl_agents.trl\n"
        "from agents.grpo import GRPOTrainer\nfrom wmrl_agents.grpo import GRPOTrainer as G\n"
        "print(agents.trl is wmrl_agents.trl, GRPOTrainer is G)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "warned: the package 'agents' is now 'wmrl_agents'" in out
    assert out.strip().endswith("True True")


def test_wmrl_agents_imports_without_the_alias():
    code = "import sys, wmrl_agents.compare, wmrl_agents.trl; print('agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
