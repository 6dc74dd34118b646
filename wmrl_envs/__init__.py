"""wmrl: Gymnasium environments for World-Model RL of research agents."""
