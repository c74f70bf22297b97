"""Recurrent networks (Chapters 2 and 3): the cells of the RNN, the LSTM and the GRU
(``cells``), the networks that stack them in depth and in both directions (``network``), built by
the name of their cell (``factory``), started with their memory open (``initialisation``), and
the models made of them: a language model, a classifier and a tagger.
"""
