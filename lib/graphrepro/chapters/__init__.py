"""The chapters, one package each (``graphrepro.chapters.<slug>``); ``graphrepro.collate`` reads across them."""
