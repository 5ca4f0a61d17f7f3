"""Every byte on disk for one store: the record codec, the journal and its
repair, the levels (``memory``), the config file (``config``), the lock
(``lock``) and the store folder's path rules (``paths``)."""
