"""Reinforcement-learning adapters: a PettingZoo AEC env (all seats) and a Gymnasium env
(one seat against bots), both driving the engine only through views and actions."""
