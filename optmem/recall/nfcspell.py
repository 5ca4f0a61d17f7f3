"""What raw text Unicode NFC turns into a given character (docs/recall.md).

Recall matches the NFC form of each line (``textform.nfc``), but its byte
prefilter reads the log's raw bytes. A record written by another tool may
hold text that NFC changes: ``u`` + U+0308 becomes ``ü``, the Kelvin sign
U+212A becomes ``K``, a CJK compatibility ideograph becomes its unified
ideograph. For the prefilter to skip a record without normalising it, its
byte pattern must also find every raw spelling that NFC turns into a
character of the needle. ``spellings`` gives those spellings.

Why they are enough. Let ``x`` be a character that is NFC-inert
(``pattern.inert_char``: not a mark, not a Hangul jamo, its own NFC), so
it starts a segment of NFC's output and nothing before it composes with
it. If ``x`` begins a segment of ``NFC(s)``, the part of ``s`` that segment
came from is a run ``c0 c1 ... cj`` whose NFD begins with the starter of
``NFD(x)`` (the NFD of a run is its characters' NFDs, marks reordered by
class; UAX #15). So ``c0``'s own NFD begins with that starter: ``c0`` is
that starter or one of the code points listed under it in
``_BY_STARTER``. Either the run is ``c0`` alone, and then ``NFC(c0)``
begins with ``x`` (``x`` itself, a singleton such as U+212A for ``K``, a
composition exclusion such as U+0958 for U+0915), or ``j >= 1`` and
``c1 ... cj`` are marks or conjoining jamo, all non-ASCII. The second case
needs ``x`` to decompose (else ``x`` is the starter, which composes with
nothing in ``NFC``'s output here), except for Hangul, where the run is the
syllable's jamo or a partial syllable and its jamo (``partials``). Two
cases found by a breaker show why ``c0`` is any code point under the
starter, not only ``x``'s partial compositions: ``À`` + U+0323 gives
``ạ`` + U+0300 (marks reordered), and U+FB2A gives ``ש`` + U+05C1.

``_SINGLETON_RUNS`` lists the singletons (every code point whose NFC is
one other code point) and ``_BY_STARTER`` every decomposing code point
under the first code point of its NFD; both were generated on Unicode 15.1
(``_scan``, ``_scan_starters``) and ``tests/test_nfcspell.py`` checks them
against the running Python. On a
Unicode version not in ``VERIFIED`` the table is not trusted and
``spellings`` returns None (the caller then normalises records instead).
"""

from __future__ import annotations

import functools
import itertools
import unicodedata

#: Unicode versions on which ``_SINGLETON_RUNS`` equals ``_scan()``
#: (Python 3.9-3.10: 13.0.0, 3.11: 14.0.0, 3.12: 15.0.0, 3.13: 15.1.0).
VERIFIED = frozenset({"13.0.0", "14.0.0", "15.0.0", "15.1.0"})
MAX_MARKS = 4  #: marks after the starter of ``NFD(x)`` that ``partials`` combines

#: (first source code point, the NFC of it and of each code point after it)
_SINGLETON_RUNS = (
    (0x0340, "\u0300\u0301"),
    (0x0343, "\u0313"),
    (0x0374, "\u02b9"),
    (0x037E, "\u003b"),
    (0x0387, "\u00b7"),
    (0x1F71, "\u03ac"),
    (0x1F73, "\u03ad"),
    (0x1F75, "\u03ae"),
    (0x1F77, "\u03af"),
    (0x1F79, "\u03cc"),
    (0x1F7B, "\u03cd"),
    (0x1F7D, "\u03ce"),
    (0x1FBB, "\u0386"),
    (0x1FBE, "\u03b9"),
    (0x1FC9, "\u0388"),
    (0x1FCB, "\u0389"),
    (0x1FD3, "\u0390"),
    (0x1FDB, "\u038a"),
    (0x1FE3, "\u03b0"),
    (0x1FEB, "\u038e"),
    (0x1FEE, "\u0385\u0060"),
    (0x1FF9, "\u038c"),
    (0x1FFB, "\u038f"),
    (0x1FFD, "\u00b4"),
    (0x2000, "\u2002\u2003"),
    (0x2126, "\u03a9"),
    (0x212A, "\u004b\u00c5"),
    (0x2329, "\u3008\u3009"),
    (0xF900, "\u8c48\u66f4\u8eca\u8cc8\u6ed1\u4e32\u53e5\u9f9c\u9f9c\u5951\u91d1"
              "\u5587\u5948\u61f6\u7669\u7f85\u863f\u87ba\u88f8\u908f\u6a02\u6d1b"
              "\u70d9\u73de\u843d\u916a\u99f1\u4e82\u5375\u6b04\u721b\u862d\u9e1e"
              "\u5d50\u6feb\u85cd\u8964\u62c9\u81d8\u881f\u5eca\u6717\u6d6a\u72fc"
              "\u90ce\u4f86\u51b7\u52de\u64c4\u6ad3\u7210\u76e7\u8001\u8606\u865c"
              "\u8def\u9732\u9b6f\u9dfa\u788c\u797f\u7da0\u83c9\u9304\u9e7f\u8ad6"
              "\u58df\u5f04\u7c60\u807e\u7262\u78ca\u8cc2\u96f7\u58d8\u5c62\u6a13"
              "\u6dda\u6f0f\u7d2f\u7e37\u964b\u52d2\u808b\u51dc\u51cc\u7a1c\u7dbe"
              "\u83f1\u9675\u8b80\u62cf\u6a02\u8afe\u4e39\u5be7\u6012\u7387\u7570"
              "\u5317\u78fb\u4fbf\u5fa9\u4e0d\u6ccc\u6578\u7d22\u53c3\u585e\u7701"
              "\u8449\u8aaa\u6bba\u8fb0\u6c88\u62fe\u82e5\u63a0\u7565\u4eae\u5169"
              "\u51c9\u6881\u7ce7\u826f\u8ad2\u91cf\u52f5\u5442\u5973\u5eec\u65c5"
              "\u6ffe\u792a\u95ad\u9a6a\u9e97\u9ece\u529b\u66c6\u6b77\u8f62\u5e74"
              "\u6190\u6200\u649a\u6f23\u7149\u7489\u79ca\u7df4\u806f\u8f26\u84ee"
              "\u9023\u934a\u5217\u52a3\u54bd\u70c8\u88c2\u8aaa\u5ec9\u5ff5\u637b"
              "\u6bae\u7c3e\u7375\u4ee4\u56f9\u5be7\u5dba\u601c\u73b2\u7469\u7f9a"
              "\u8046\u9234\u96f6\u9748\u9818\u4f8b\u79ae\u91b4\u96b8\u60e1\u4e86"
              "\u50da\u5bee\u5c3f\u6599\u6a02\u71ce\u7642\u84fc\u907c\u9f8d\u6688"
              "\u962e\u5289\u677b\u67f3\u6d41\u6e9c\u7409\u7559\u786b\u7d10\u985e"
              "\u516d\u622e\u9678\u502b\u5d19\u6dea\u8f2a\u5f8b\u6144\u6817\u7387"
              "\u9686\u5229\u540f\u5c65\u6613\u674e\u68a8\u6ce5\u7406\u75e2\u7f79"
              "\u88cf\u88e1\u91cc\u96e2\u533f\u6eba\u541d\u71d0\u7498\u85fa\u96a3"
              "\u9c57\u9e9f\u6797\u6dcb\u81e8\u7acb\u7b20\u7c92\u72c0\u7099\u8b58"
              "\u4ec0\u8336\u523a\u5207\u5ea6\u62d3\u7cd6\u5b85\u6d1e\u66b4\u8f3b"
              "\u884c\u964d\u898b\u5ed3\u5140\u55c0"),
    (0xFA10, "\u585a"),
    (0xFA12, "\u6674"),
    (0xFA15, "\u51de\u732a\u76ca\u793c\u795e\u7965\u798f\u9756\u7cbe\u7fbd"),
    (0xFA20, "\u8612"),
    (0xFA22, "\u8af8"),
    (0xFA25, "\u9038\u90fd"),
    (0xFA2A, "\u98ef\u98fc\u9928\u9db4\u90de\u96b7\u4fae\u50e7\u514d\u52c9\u52e4"
              "\u5351\u559d\u5606\u5668\u5840\u58a8\u5c64\u5c6e\u6094\u6168\u618e"
              "\u61f2\u654f\u65e2\u6691\u6885\u6d77\u6e1a\u6f22\u716e\u722b\u7422"
              "\u7891\u793e\u7949\u7948\u7950\u7956\u795d\u798d\u798e\u7a40\u7a81"
              "\u7bc0\u7df4\u7e09\u7e41\u7f72\u8005\u81ed\u8279\u8279\u8457\u8910"
              "\u8996\u8b01\u8b39\u8cd3\u8d08\u8fb6\u9038\u96e3\u97ff\u983b\u6075"
              "\U000242ee\u8218"),
    (0xFA70, "\u4e26\u51b5\u5168\u4f80\u5145\u5180\u52c7\u52fa\u559d\u5555\u5599"
              "\u55e2\u585a\u58b3\u5944\u5954\u5a62\u5b28\u5ed2\u5ed9\u5f69\u5fad"
              "\u60d8\u614e\u6108\u618e\u6160\u61f2\u6234\u63c4\u641c\u6452\u6556"
              "\u6674\u6717\u671b\u6756\u6b79\u6bba\u6d41\u6edb\u6ecb\u6f22\u701e"
              "\u716e\u77a7\u7235\u72af\u732a\u7471\u7506\u753b\u761d\u761f\u76ca"
              "\u76db\u76f4\u774a\u7740\u78cc\u7ab1\u7bc0\u7c7b\u7d5b\u7df4\u7f3e"
              "\u8005\u8352\u83ef\u8779\u8941\u8986\u8996\u8abf\u8af8\u8acb\u8b01"
              "\u8afe\u8aed\u8b39\u8b8a\u8d08\u8f38\u9072\u9199\u9276\u967c\u96e3"
              "\u9756\u97db\u97ff\u980b\u983b\u9b12\u9f9c\U0002284a\U00022844"
              "\U000233d5\u3b9d\u4018\u4039\U00025249\U00025cd0\U00027ed3\u9f43"
              "\u9f8e"),
    (0x2F800, "\u4e3d\u4e38\u4e41\U00020122\u4f60\u4fae\u4fbb\u5002\u507a\u5099"
              "\u50e7\u50cf\u349e\U0002063a\u514d\u5154\u5164\u5177\U0002051c"
              "\u34b9\u5167\u518d\U0002054b\u5197\u51a4\u4ecc\u51ac\u51b5"
              "\U000291df\u51f5\u5203\u34df\u523b\u5246\u5272\u5277\u3515\u52c7"
              "\u52c9\u52e4\u52fa\u5305\u5306\u5317\u5349\u5351\u535a\u5373\u537d"
              "\u537f\u537f\u537f\U00020a2c\u7070\u53ca\u53df\U00020b63\u53eb"
              "\u53f1\u5406\u549e\u5438\u5448\u5468\u54a2\u54f6\u5510\u5553\u5563"
              "\u5584\u5584\u5599\u55ab\u55b3\u55c2\u5716\u5606\u5717\u5651\u5674"
              "\u5207\u58ee\u57ce\u57f4\u580d\u578b\u5832\u5831\u58ac\U000214e4"
              "\u58f2\u58f7\u5906\u591a\u5922\u5962\U000216a8\U000216ea\u59ec"
              "\u5a1b\u5a27\u59d8\u5a66\u36ee\u36fc\u5b08\u5b3e\u5b3e\U000219c8"
              "\u5bc3\u5bd8\u5be7\u5bf3\U00021b18\u5bff\u5c06\u5f53\u5c22\u3781"
              "\u5c60\u5c6e\u5cc0\u5c8d\U00021de4\u5d43\U00021de6\u5d6e\u5d6b"
              "\u5d7c\u5de1\u5de2\u382f\u5dfd\u5e28\u5e3d\u5e69\u3862\U00022183"
              "\u387c\u5eb0\u5eb3\u5eb6\u5eca\U0002a392\u5efe\U00022331\U00022331"
              "\u8201\u5f22\u5f22\u38c7\U000232b8\U000261da\u5f62\u5f6b\u38e3"
              "\u5f9a\u5fcd\u5fd7\u5ff9\u6081\u393a\u391c\u6094\U000226d4\u60c7"
              "\u6148\u614c\u614e\u614c\u617a\u618e\u61b2\u61a4\u61af\u61de\u61f2"
              "\u61f6\u6210\u621b\u625d\u62b1\u62d4\u6350\U00022b0c\u633d\u62fc"
              "\u6368\u6383\u63e4\U00022bf1\u6422\u63c5\u63a9\u3a2e\u6469\u647e"
              "\u649d\u6477\u3a6c\u654f\u656c\U0002300a\u65e3\u66f8\u6649\u3b19"
              "\u6691\u3b08\u3ae4\u5192\u5195\u6700\u669c\u80ad\u43d9\u6717\u671b"
              "\u6721\u675e\u6753\U000233c3\u3b49\u67fa\u6785\u6852\u6885"
              "\U0002346d\u688e\u681f\u6914\u3b9d\u6942\u69a3\u69ea\u6aa8"
              "\U000236a3\u6adb\u3c18\u6b21\U000238a7\u6b54\u3c4e\u6b72\u6b9f"
              "\u6bba\u6bbb\U00023a8d\U00021d0b\U00023afa\u6c4e\U00023cbc\u6cbf"
              "\u6ccd\u6c67\u6d16\u6d3e\u6d77\u6d41\u6d69\u6d78\u6d85\U00023d1e"
              "\u6d34\u6e2f\u6e6e\u3d33\u6ecb\u6ec7\U00023ed1\u6df9\u6f6e"
              "\U00023f5e\U00023f8e\u6fc6\u7039\u701e\u701b\u3d96\u704a\u707d"
              "\u7077\u70ad\U00020525\u7145\U00024263\u719c\U000243ab\u7228\u7235"
              "\u7250\U00024608\u7280\u7295\U00024735\U00024814\u737a\u738b\u3eac"
              "\u73a5\u3eb8\u3eb8\u7447\u745c\u7471\u7485\u74ca\u3f1b\u7524"
              "\U00024c36\u753e\U00024c92\u7570\U0002219f\u7610\U00024fa1"
              "\U00024fb8\U00025044\u3ffc\u4008\u76f4\U000250f3\U000250f2"
              "\U00025119\U00025133\u771e\u771f\u771f\u774a\u4039\u778b\u4046"
              "\u4096\U0002541d\u784e\u788c\u78cc\u40e3\U00025626\u7956\U0002569a"
              "\U000256c5\u798f\u79eb\u412f\u7a40\u7a4a\u7a4f\U0002597c\U00025aa7"
              "\U00025aa7\u7aee\u4202\U00025bab\u7bc6\u7bc9\u4227\U00025c80\u7cd2"
              "\u42a0\u7ce8\u7ce3\u7d00\U00025f86\u7d63\u4301\u7dc7\u7e02\u7e45"
              "\u4334\U00026228\U00026247\u4359\U000262d9\u7f7a\U0002633e\u7f95"
              "\u7ffa\u8005\U000264da\U00026523\u8060\U000265a8\u8070\U0002335f"
              "\u43d5\u80b2\u8103\u440b\u813e\u5ab5\U000267a7\U000267b5\U00023393"
              "\U0002339c\u8201\u8204\u8f9e\u446b\u8291\u828b\u829d\u52b3\u82b1"
              "\u82b3\u82bd\u82e6\U00026b3c\u82e5\u831d\u8363\u83ad\u8323\u83bd"
              "\u83e7\u8457\u8353\u83ca\u83cc\u83dc\U00026c36\U00026d6b\U00026cd5"
              "\u452b\u84f1\u84f3\u8516\U000273ca\u8564\U00026f2c\u455d\u4561"
              "\U00026fb1\U000270d2\u456b\u8650\u865c\u8667\u8669\u86a9\u8688"
              "\u870e\u86e2\u8779\u8728\u876b\u8786\u45d7\u87e1\u8801\u45f9\u8860"
              "\u8863\U00027667\u88d7\u88de\u4635\u88fa\u34bb\U000278ae\U00027966"
              "\u46be\u46c7\u8aa0\u8aed\u8b8a\u8c55\U00027ca8\u8cab\u8cc1\u8d1b"
              "\u8d77\U00027f2f\U00020804\u8dcb\u8dbc\u8df0\U000208de\u8ed4\u8f38"
              "\U000285d2\U000285ed\u9094\u90f1\u9111\U0002872e\u911b\u9238\u92d7"
              "\u92d8\u927c\u93f9\u9415\U00028bfa\u958b\u4995\u95b7\U00028d77"
              "\u49e6\u96c3\u5db2\u9723\U00029145\U0002921a\u4a6e\u4a76\u97e0"
              "\U0002940a\u4ab2\U00029496\u980b\u980b\u9829\U000295b6\u98e2\u4b33"
              "\u9929\u99a7\u99c2\u99fe\u4bce\U00029b30\u9b12\u9c40\u9cfd\u4cce"
              "\u4ced\u9d67\U0002a0ce\u4cf8\U0002a105\U0002a20e\U0002a291\u9ebb"
              "\u4d56\u9ef9\u9efe\u9f05\u9f0f\u9f16\u9f3b\U0002a600"),
)

#: starter -> every code point (Hangul syllables aside) whose NFD begins with it
#: (composites, composition exclusions, singletons); generated by ``_scan_starters``
#: on Unicode 15.1, checked against the running Python by the tests.
_BY_STARTER = {
    "\u003b": "\u037e",
    "\u003c": "\u226e",
    "\u003d": "\u2260",
    "\u003e": "\u226f",
    "\u0041": ("\u00c0\u00c1\u00c2\u00c3\u00c4\u00c5\u0100\u0102\u0104\u01cd"
               "\u01de\u01e0\u01fa\u0200\u0202\u0226\u1e00\u1ea0\u1ea2\u1ea4"
               "\u1ea6\u1ea8\u1eaa\u1eac\u1eae\u1eb0\u1eb2\u1eb4\u1eb6\u212b"),
    "\u0042": "\u1e02\u1e04\u1e06",
    "\u0043": "\u00c7\u0106\u0108\u010a\u010c\u1e08",
    "\u0044": "\u010e\u1e0a\u1e0c\u1e0e\u1e10\u1e12",
    "\u0045": ("\u00c8\u00c9\u00ca\u00cb\u0112\u0114\u0116\u0118\u011a\u0204"
               "\u0206\u0228\u1e14\u1e16\u1e18\u1e1a\u1e1c\u1eb8\u1eba\u1ebc"
               "\u1ebe\u1ec0\u1ec2\u1ec4\u1ec6"),
    "\u0046": "\u1e1e",
    "\u0047": "\u011c\u011e\u0120\u0122\u01e6\u01f4\u1e20",
    "\u0048": "\u0124\u021e\u1e22\u1e24\u1e26\u1e28\u1e2a",
    "\u0049": ("\u00cc\u00cd\u00ce\u00cf\u0128\u012a\u012c\u012e\u0130\u01cf"
               "\u0208\u020a\u1e2c\u1e2e\u1ec8\u1eca"),
    "\u004a": "\u0134",
    "\u004b": "\u0136\u01e8\u1e30\u1e32\u1e34\u212a",
    "\u004c": "\u0139\u013b\u013d\u1e36\u1e38\u1e3a\u1e3c",
    "\u004d": "\u1e3e\u1e40\u1e42",
    "\u004e": "\u00d1\u0143\u0145\u0147\u01f8\u1e44\u1e46\u1e48\u1e4a",
    "\u004f": ("\u00d2\u00d3\u00d4\u00d5\u00d6\u014c\u014e\u0150\u01a0\u01d1"
               "\u01ea\u01ec\u020c\u020e\u022a\u022c\u022e\u0230\u1e4c\u1e4e"
               "\u1e50\u1e52\u1ecc\u1ece\u1ed0\u1ed2\u1ed4\u1ed6\u1ed8\u1eda"
               "\u1edc\u1ede\u1ee0\u1ee2"),
    "\u0050": "\u1e54\u1e56",
    "\u0052": "\u0154\u0156\u0158\u0210\u0212\u1e58\u1e5a\u1e5c\u1e5e",
    "\u0053": "\u015a\u015c\u015e\u0160\u0218\u1e60\u1e62\u1e64\u1e66\u1e68",
    "\u0054": "\u0162\u0164\u021a\u1e6a\u1e6c\u1e6e\u1e70",
    "\u0055": ("\u00d9\u00da\u00db\u00dc\u0168\u016a\u016c\u016e\u0170\u0172"
               "\u01af\u01d3\u01d5\u01d7\u01d9\u01db\u0214\u0216\u1e72\u1e74"
               "\u1e76\u1e78\u1e7a\u1ee4\u1ee6\u1ee8\u1eea\u1eec\u1eee\u1ef0"),
    "\u0056": "\u1e7c\u1e7e",
    "\u0057": "\u0174\u1e80\u1e82\u1e84\u1e86\u1e88",
    "\u0058": "\u1e8a\u1e8c",
    "\u0059": "\u00dd\u0176\u0178\u0232\u1e8e\u1ef2\u1ef4\u1ef6\u1ef8",
    "\u005a": "\u0179\u017b\u017d\u1e90\u1e92\u1e94",
    "\u0060": "\u1fef",
    "\u0061": ("\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u0101\u0103\u0105\u01ce"
               "\u01df\u01e1\u01fb\u0201\u0203\u0227\u1e01\u1ea1\u1ea3\u1ea5"
               "\u1ea7\u1ea9\u1eab\u1ead\u1eaf\u1eb1\u1eb3\u1eb5\u1eb7"),
    "\u0062": "\u1e03\u1e05\u1e07",
    "\u0063": "\u00e7\u0107\u0109\u010b\u010d\u1e09",
    "\u0064": "\u010f\u1e0b\u1e0d\u1e0f\u1e11\u1e13",
    "\u0065": ("\u00e8\u00e9\u00ea\u00eb\u0113\u0115\u0117\u0119\u011b\u0205"
               "\u0207\u0229\u1e15\u1e17\u1e19\u1e1b\u1e1d\u1eb9\u1ebb\u1ebd"
               "\u1ebf\u1ec1\u1ec3\u1ec5\u1ec7"),
    "\u0066": "\u1e1f",
    "\u0067": "\u011d\u011f\u0121\u0123\u01e7\u01f5\u1e21",
    "\u0068": "\u0125\u021f\u1e23\u1e25\u1e27\u1e29\u1e2b\u1e96",
    "\u0069": ("\u00ec\u00ed\u00ee\u00ef\u0129\u012b\u012d\u012f\u01d0\u0209"
               "\u020b\u1e2d\u1e2f\u1ec9\u1ecb"),
    "\u006a": "\u0135\u01f0",
    "\u006b": "\u0137\u01e9\u1e31\u1e33\u1e35",
    "\u006c": "\u013a\u013c\u013e\u1e37\u1e39\u1e3b\u1e3d",
    "\u006d": "\u1e3f\u1e41\u1e43",
    "\u006e": "\u00f1\u0144\u0146\u0148\u01f9\u1e45\u1e47\u1e49\u1e4b",
    "\u006f": ("\u00f2\u00f3\u00f4\u00f5\u00f6\u014d\u014f\u0151\u01a1\u01d2"
               "\u01eb\u01ed\u020d\u020f\u022b\u022d\u022f\u0231\u1e4d\u1e4f"
               "\u1e51\u1e53\u1ecd\u1ecf\u1ed1\u1ed3\u1ed5\u1ed7\u1ed9\u1edb"
               "\u1edd\u1edf\u1ee1\u1ee3"),
    "\u0070": "\u1e55\u1e57",
    "\u0072": "\u0155\u0157\u0159\u0211\u0213\u1e59\u1e5b\u1e5d\u1e5f",
    "\u0073": "\u015b\u015d\u015f\u0161\u0219\u1e61\u1e63\u1e65\u1e67\u1e69",
    "\u0074": "\u0163\u0165\u021b\u1e6b\u1e6d\u1e6f\u1e71\u1e97",
    "\u0075": ("\u00f9\u00fa\u00fb\u00fc\u0169\u016b\u016d\u016f\u0171\u0173"
               "\u01b0\u01d4\u01d6\u01d8\u01da\u01dc\u0215\u0217\u1e73\u1e75"
               "\u1e77\u1e79\u1e7b\u1ee5\u1ee7\u1ee9\u1eeb\u1eed\u1eef\u1ef1"),
    "\u0076": "\u1e7d\u1e7f",
    "\u0077": "\u0175\u1e81\u1e83\u1e85\u1e87\u1e89\u1e98",
    "\u0078": "\u1e8b\u1e8d",
    "\u0079": "\u00fd\u00ff\u0177\u0233\u1e8f\u1e99\u1ef3\u1ef5\u1ef7\u1ef9",
    "\u007a": "\u017a\u017c\u017e\u1e91\u1e93\u1e95",
    "\u00a8": "\u0385\u1fc1\u1fed\u1fee",
    "\u00b4": "\u1ffd",
    "\u00b7": "\u0387",
    "\u00c6": "\u01e2\u01fc",
    "\u00d8": "\u01fe",
    "\u00e6": "\u01e3\u01fd",
    "\u00f8": "\u01ff",
    "\u017f": "\u1e9b",
    "\u01b7": "\u01ee",
    "\u0292": "\u01ef",
    "\u02b9": "\u0374",
    "\u0300": "\u0340",
    "\u0301": "\u0341",
    "\u0308": "\u0344",
    "\u0313": "\u0343",
    "\u0391": ("\u0386\u1f08\u1f09\u1f0a\u1f0b\u1f0c\u1f0d\u1f0e\u1f0f\u1f88"
               "\u1f89\u1f8a\u1f8b\u1f8c\u1f8d\u1f8e\u1f8f\u1fb8\u1fb9\u1fba"
               "\u1fbb\u1fbc"),
    "\u0395": "\u0388\u1f18\u1f19\u1f1a\u1f1b\u1f1c\u1f1d\u1fc8\u1fc9",
    "\u0397": ("\u0389\u1f28\u1f29\u1f2a\u1f2b\u1f2c\u1f2d\u1f2e\u1f2f\u1f98"
               "\u1f99\u1f9a\u1f9b\u1f9c\u1f9d\u1f9e\u1f9f\u1fca\u1fcb\u1fcc"),
    "\u0399": ("\u038a\u03aa\u1f38\u1f39\u1f3a\u1f3b\u1f3c\u1f3d\u1f3e\u1f3f"
               "\u1fd8\u1fd9\u1fda\u1fdb"),
    "\u039f": "\u038c\u1f48\u1f49\u1f4a\u1f4b\u1f4c\u1f4d\u1ff8\u1ff9",
    "\u03a1": "\u1fec",
    "\u03a5": "\u038e\u03ab\u1f59\u1f5b\u1f5d\u1f5f\u1fe8\u1fe9\u1fea\u1feb",
    "\u03a9": ("\u038f\u1f68\u1f69\u1f6a\u1f6b\u1f6c\u1f6d\u1f6e\u1f6f\u1fa8"
               "\u1fa9\u1faa\u1fab\u1fac\u1fad\u1fae\u1faf\u1ffa\u1ffb\u1ffc"
               "\u2126"),
    "\u03b1": ("\u03ac\u1f00\u1f01\u1f02\u1f03\u1f04\u1f05\u1f06\u1f07\u1f70"
               "\u1f71\u1f80\u1f81\u1f82\u1f83\u1f84\u1f85\u1f86\u1f87\u1fb0"
               "\u1fb1\u1fb2\u1fb3\u1fb4\u1fb6\u1fb7"),
    "\u03b5": "\u03ad\u1f10\u1f11\u1f12\u1f13\u1f14\u1f15\u1f72\u1f73",
    "\u03b7": ("\u03ae\u1f20\u1f21\u1f22\u1f23\u1f24\u1f25\u1f26\u1f27\u1f74"
               "\u1f75\u1f90\u1f91\u1f92\u1f93\u1f94\u1f95\u1f96\u1f97\u1fc2"
               "\u1fc3\u1fc4\u1fc6\u1fc7"),
    "\u03b9": ("\u0390\u03af\u03ca\u1f30\u1f31\u1f32\u1f33\u1f34\u1f35\u1f36"
               "\u1f37\u1f76\u1f77\u1fbe\u1fd0\u1fd1\u1fd2\u1fd3\u1fd6\u1fd7"),
    "\u03bf": "\u03cc\u1f40\u1f41\u1f42\u1f43\u1f44\u1f45\u1f78\u1f79",
    "\u03c1": "\u1fe4\u1fe5",
    "\u03c5": ("\u03b0\u03cb\u03cd\u1f50\u1f51\u1f52\u1f53\u1f54\u1f55\u1f56"
               "\u1f57\u1f7a\u1f7b\u1fe0\u1fe1\u1fe2\u1fe3\u1fe6\u1fe7"),
    "\u03c9": ("\u03ce\u1f60\u1f61\u1f62\u1f63\u1f64\u1f65\u1f66\u1f67\u1f7c"
               "\u1f7d\u1fa0\u1fa1\u1fa2\u1fa3\u1fa4\u1fa5\u1fa6\u1fa7\u1ff2"
               "\u1ff3\u1ff4\u1ff6\u1ff7"),
    "\u03d2": "\u03d3\u03d4",
    "\u0406": "\u0407",
    "\u0410": "\u04d0\u04d2",
    "\u0413": "\u0403",
    "\u0415": "\u0400\u0401\u04d6",
    "\u0416": "\u04c1\u04dc",
    "\u0417": "\u04de",
    "\u0418": "\u040d\u0419\u04e2\u04e4",
    "\u041a": "\u040c",
    "\u041e": "\u04e6",
    "\u0423": "\u040e\u04ee\u04f0\u04f2",
    "\u0427": "\u04f4",
    "\u042b": "\u04f8",
    "\u042d": "\u04ec",
    "\u0430": "\u04d1\u04d3",
    "\u0433": "\u0453",
    "\u0435": "\u0450\u0451\u04d7",
    "\u0436": "\u04c2\u04dd",
    "\u0437": "\u04df",
    "\u0438": "\u0439\u045d\u04e3\u04e5",
    "\u043a": "\u045c",
    "\u043e": "\u04e7",
    "\u0443": "\u045e\u04ef\u04f1\u04f3",
    "\u0447": "\u04f5",
    "\u044b": "\u04f9",
    "\u044d": "\u04ed",
    "\u0456": "\u0457",
    "\u0474": "\u0476",
    "\u0475": "\u0477",
    "\u04d8": "\u04da",
    "\u04d9": "\u04db",
    "\u04e8": "\u04ea",
    "\u04e9": "\u04eb",
    "\u05d0": "\ufb2e\ufb2f\ufb30",
    "\u05d1": "\ufb31\ufb4c",
    "\u05d2": "\ufb32",
    "\u05d3": "\ufb33",
    "\u05d4": "\ufb34",
    "\u05d5": "\ufb35\ufb4b",
    "\u05d6": "\ufb36",
    "\u05d8": "\ufb38",
    "\u05d9": "\ufb1d\ufb39",
    "\u05da": "\ufb3a",
    "\u05db": "\ufb3b\ufb4d",
    "\u05dc": "\ufb3c",
    "\u05de": "\ufb3e",
    "\u05e0": "\ufb40",
    "\u05e1": "\ufb41",
    "\u05e3": "\ufb43",
    "\u05e4": "\ufb44\ufb4e",
    "\u05e6": "\ufb46",
    "\u05e7": "\ufb47",
    "\u05e8": "\ufb48",
    "\u05e9": "\ufb2a\ufb2b\ufb2c\ufb2d\ufb49",
    "\u05ea": "\ufb4a",
    "\u05f2": "\ufb1f",
    "\u0627": "\u0622\u0623\u0625",
    "\u0648": "\u0624",
    "\u064a": "\u0626",
    "\u06c1": "\u06c2",
    "\u06d2": "\u06d3",
    "\u06d5": "\u06c0",
    "\u0915": "\u0958",
    "\u0916": "\u0959",
    "\u0917": "\u095a",
    "\u091c": "\u095b",
    "\u0921": "\u095c",
    "\u0922": "\u095d",
    "\u0928": "\u0929",
    "\u092b": "\u095e",
    "\u092f": "\u095f",
    "\u0930": "\u0931",
    "\u0933": "\u0934",
    "\u09a1": "\u09dc",
    "\u09a2": "\u09dd",
    "\u09af": "\u09df",
    "\u09c7": "\u09cb\u09cc",
    "\u0a16": "\u0a59",
    "\u0a17": "\u0a5a",
    "\u0a1c": "\u0a5b",
    "\u0a2b": "\u0a5e",
    "\u0a32": "\u0a33",
    "\u0a38": "\u0a36",
    "\u0b21": "\u0b5c",
    "\u0b22": "\u0b5d",
    "\u0b47": "\u0b48\u0b4b\u0b4c",
    "\u0b92": "\u0b94",
    "\u0bc6": "\u0bca\u0bcc",
    "\u0bc7": "\u0bcb",
    "\u0c46": "\u0c48",
    "\u0cbf": "\u0cc0",
    "\u0cc6": "\u0cc7\u0cc8\u0cca\u0ccb",
    "\u0d46": "\u0d4a\u0d4c",
    "\u0d47": "\u0d4b",
    "\u0dd9": "\u0dda\u0ddc\u0ddd\u0dde",
    "\u0f40": "\u0f69",
    "\u0f42": "\u0f43",
    "\u0f4c": "\u0f4d",
    "\u0f51": "\u0f52",
    "\u0f56": "\u0f57",
    "\u0f5b": "\u0f5c",
    "\u0f71": "\u0f73\u0f75\u0f81",
    "\u0f90": "\u0fb9",
    "\u0f92": "\u0f93",
    "\u0f9c": "\u0f9d",
    "\u0fa1": "\u0fa2",
    "\u0fa6": "\u0fa7",
    "\u0fab": "\u0fac",
    "\u0fb2": "\u0f76",
    "\u0fb3": "\u0f78",
    "\u1025": "\u1026",
    "\u1b05": "\u1b06",
    "\u1b07": "\u1b08",
    "\u1b09": "\u1b0a",
    "\u1b0b": "\u1b0c",
    "\u1b0d": "\u1b0e",
    "\u1b11": "\u1b12",
    "\u1b3a": "\u1b3b",
    "\u1b3c": "\u1b3d",
    "\u1b3e": "\u1b40",
    "\u1b3f": "\u1b41",
    "\u1b42": "\u1b43",
    "\u1fbf": "\u1fcd\u1fce\u1fcf",
    "\u1ffe": "\u1fdd\u1fde\u1fdf",
    "\u2002": "\u2000",
    "\u2003": "\u2001",
    "\u2190": "\u219a",
    "\u2192": "\u219b",
    "\u2194": "\u21ae",
    "\u21d0": "\u21cd",
    "\u21d2": "\u21cf",
    "\u21d4": "\u21ce",
    "\u2203": "\u2204",
    "\u2208": "\u2209",
    "\u220b": "\u220c",
    "\u2223": "\u2224",
    "\u2225": "\u2226",
    "\u223c": "\u2241",
    "\u2243": "\u2244",
    "\u2245": "\u2247",
    "\u2248": "\u2249",
    "\u224d": "\u226d",
    "\u2261": "\u2262",
    "\u2264": "\u2270",
    "\u2265": "\u2271",
    "\u2272": "\u2274",
    "\u2273": "\u2275",
    "\u2276": "\u2278",
    "\u2277": "\u2279",
    "\u227a": "\u2280",
    "\u227b": "\u2281",
    "\u227c": "\u22e0",
    "\u227d": "\u22e1",
    "\u2282": "\u2284",
    "\u2283": "\u2285",
    "\u2286": "\u2288",
    "\u2287": "\u2289",
    "\u2291": "\u22e2",
    "\u2292": "\u22e3",
    "\u22a2": "\u22ac",
    "\u22a8": "\u22ad",
    "\u22a9": "\u22ae",
    "\u22ab": "\u22af",
    "\u22b2": "\u22ea",
    "\u22b3": "\u22eb",
    "\u22b4": "\u22ec",
    "\u22b5": "\u22ed",
    "\u2add": "\u2adc",
    "\u3008": "\u2329",
    "\u3009": "\u232a",
    "\u3046": "\u3094",
    "\u304b": "\u304c",
    "\u304d": "\u304e",
    "\u304f": "\u3050",
    "\u3051": "\u3052",
    "\u3053": "\u3054",
    "\u3055": "\u3056",
    "\u3057": "\u3058",
    "\u3059": "\u305a",
    "\u305b": "\u305c",
    "\u305d": "\u305e",
    "\u305f": "\u3060",
    "\u3061": "\u3062",
    "\u3064": "\u3065",
    "\u3066": "\u3067",
    "\u3068": "\u3069",
    "\u306f": "\u3070\u3071",
    "\u3072": "\u3073\u3074",
    "\u3075": "\u3076\u3077",
    "\u3078": "\u3079\u307a",
    "\u307b": "\u307c\u307d",
    "\u309d": "\u309e",
    "\u30a6": "\u30f4",
    "\u30ab": "\u30ac",
    "\u30ad": "\u30ae",
    "\u30af": "\u30b0",
    "\u30b1": "\u30b2",
    "\u30b3": "\u30b4",
    "\u30b5": "\u30b6",
    "\u30b7": "\u30b8",
    "\u30b9": "\u30ba",
    "\u30bb": "\u30bc",
    "\u30bd": "\u30be",
    "\u30bf": "\u30c0",
    "\u30c1": "\u30c2",
    "\u30c4": "\u30c5",
    "\u30c6": "\u30c7",
    "\u30c8": "\u30c9",
    "\u30cf": "\u30d0\u30d1",
    "\u30d2": "\u30d3\u30d4",
    "\u30d5": "\u30d6\u30d7",
    "\u30d8": "\u30d9\u30da",
    "\u30db": "\u30dc\u30dd",
    "\u30ef": "\u30f7",
    "\u30f0": "\u30f8",
    "\u30f1": "\u30f9",
    "\u30f2": "\u30fa",
    "\u30fd": "\u30fe",
    "\u349e": "\U0002f80c",
    "\u34b9": "\U0002f813",
    "\u34bb": "\U0002f9ca",
    "\u34df": "\U0002f81f",
    "\u3515": "\U0002f824",
    "\u36ee": "\U0002f867",
    "\u36fc": "\U0002f868",
    "\u3781": "\U0002f876",
    "\u382f": "\U0002f883",
    "\u3862": "\U0002f888",
    "\u387c": "\U0002f88a",
    "\u38c7": "\U0002f896",
    "\u38e3": "\U0002f89b",
    "\u391c": "\U0002f8a2",
    "\u393a": "\U0002f8a1",
    "\u3a2e": "\U0002f8c2",
    "\u3a6c": "\U0002f8c7",
    "\u3ae4": "\U0002f8d1",
    "\u3b08": "\U0002f8d0",
    "\u3b19": "\U0002f8ce",
    "\u3b49": "\U0002f8de",
    "\u3b9d": "\ufad2\U0002f8e7",
    "\u3c18": "\U0002f8ee",
    "\u3c4e": "\U0002f8f2",
    "\u3d33": "\U0002f90a",
    "\u3d96": "\U0002f916",
    "\u3eac": "\U0002f92a",
    "\u3eb8": "\U0002f92c\U0002f92d",
    "\u3f1b": "\U0002f933",
    "\u3ffc": "\U0002f93e",
    "\u4008": "\U0002f93f",
    "\u4018": "\ufad3",
    "\u4039": "\ufad4\U0002f949",
    "\u4046": "\U0002f94b",
    "\u4096": "\U0002f94c",
    "\u40e3": "\U0002f951",
    "\u412f": "\U0002f958",
    "\u4202": "\U0002f960",
    "\u4227": "\U0002f964",
    "\u42a0": "\U0002f967",
    "\u4301": "\U0002f96d",
    "\u4334": "\U0002f971",
    "\u4359": "\U0002f974",
    "\u43d5": "\U0002f981",
    "\u43d9": "\U0002f8d7",
    "\u440b": "\U0002f984",
    "\u446b": "\U0002f98e",
    "\u452b": "\U0002f9a7",
    "\u455d": "\U0002f9ae",
    "\u4561": "\U0002f9af",
    "\u456b": "\U0002f9b2",
    "\u45d7": "\U0002f9bf",
    "\u45f9": "\U0002f9c2",
    "\u4635": "\U0002f9c8",
    "\u46be": "\U0002f9cd",
    "\u46c7": "\U0002f9ce",
    "\u4995": "\U0002f9ef",
    "\u49e6": "\U0002f9f2",
    "\u4a6e": "\U0002f9f8",
    "\u4a76": "\U0002f9f9",
    "\u4ab2": "\U0002f9fc",
    "\u4b33": "\U0002fa03",
    "\u4bce": "\U0002fa08",
    "\u4cce": "\U0002fa0d",
    "\u4ced": "\U0002fa0e",
    "\u4cf8": "\U0002fa11",
    "\u4d56": "\U0002fa16",
    "\u4e0d": "\uf967",
    "\u4e26": "\ufa70",
    "\u4e32": "\uf905",
    "\u4e38": "\U0002f801",
    "\u4e39": "\uf95e",
    "\u4e3d": "\U0002f800",
    "\u4e41": "\U0002f802",
    "\u4e82": "\uf91b",
    "\u4e86": "\uf9ba",
    "\u4eae": "\uf977",
    "\u4ec0": "\uf9fd",
    "\u4ecc": "\U0002f819",
    "\u4ee4": "\uf9a8",
    "\u4f60": "\U0002f804",
    "\u4f80": "\ufa73",
    "\u4f86": "\uf92d",
    "\u4f8b": "\uf9b5",
    "\u4fae": "\ufa30\U0002f805",
    "\u4fbb": "\U0002f806",
    "\u4fbf": "\uf965",
    "\u5002": "\U0002f807",
    "\u502b": "\uf9d4",
    "\u507a": "\U0002f808",
    "\u5099": "\U0002f809",
    "\u50cf": "\U0002f80b",
    "\u50da": "\uf9bb",
    "\u50e7": "\ufa31\U0002f80a",
    "\u5140": "\ufa0c",
    "\u5145": "\ufa74",
    "\u514d": "\ufa32\U0002f80e",
    "\u5154": "\U0002f80f",
    "\u5164": "\U0002f810",
    "\u5167": "\U0002f814",
    "\u5168": "\ufa72",
    "\u5169": "\uf978",
    "\u516d": "\uf9d1",
    "\u5177": "\U0002f811",
    "\u5180": "\ufa75",
    "\u518d": "\U0002f815",
    "\u5192": "\U0002f8d2",
    "\u5195": "\U0002f8d3",
    "\u5197": "\U0002f817",
    "\u51a4": "\U0002f818",
    "\u51ac": "\U0002f81a",
    "\u51b5": "\ufa71\U0002f81b",
    "\u51b7": "\uf92e",
    "\u51c9": "\uf979",
    "\u51cc": "\uf955",
    "\u51dc": "\uf954",
    "\u51de": "\ufa15",
    "\u51f5": "\U0002f81d",
    "\u5203": "\U0002f81e",
    "\u5207": "\ufa00\U0002f850",
    "\u5217": "\uf99c",
    "\u5229": "\uf9dd",
    "\u523a": "\uf9ff",
    "\u523b": "\U0002f820",
    "\u5246": "\U0002f821",
    "\u5272": "\U0002f822",
    "\u5277": "\U0002f823",
    "\u5289": "\uf9c7",
    "\u529b": "\uf98a",
    "\u52a3": "\uf99d",
    "\u52b3": "\U0002f992",
    "\u52c7": "\ufa76\U0002f825",
    "\u52c9": "\ufa33\U0002f826",
    "\u52d2": "\uf952",
    "\u52de": "\uf92f",
    "\u52e4": "\ufa34\U0002f827",
    "\u52f5": "\uf97f",
    "\u52fa": "\ufa77\U0002f828",
    "\u5305": "\U0002f829",
    "\u5306": "\U0002f82a",
    "\u5317": "\uf963\U0002f82b",
    "\u533f": "\uf9eb",
    "\u5349": "\U0002f82c",
    "\u5351": "\ufa35\U0002f82d",
    "\u535a": "\U0002f82e",
    "\u5373": "\U0002f82f",
    "\u5375": "\uf91c",
    "\u537d": "\U0002f830",
    "\u537f": "\U0002f831\U0002f832\U0002f833",
    "\u53c3": "\uf96b",
    "\u53ca": "\U0002f836",
    "\u53df": "\U0002f837",
    "\u53e5": "\uf906",
    "\u53eb": "\U0002f839",
    "\u53f1": "\U0002f83a",
    "\u5406": "\U0002f83b",
    "\u540f": "\uf9de",
    "\u541d": "\uf9ed",
    "\u5438": "\U0002f83d",
    "\u5442": "\uf980",
    "\u5448": "\U0002f83e",
    "\u5468": "\U0002f83f",
    "\u549e": "\U0002f83c",
    "\u54a2": "\U0002f840",
    "\u54bd": "\uf99e",
    "\u54f6": "\U0002f841",
    "\u5510": "\U0002f842",
    "\u5553": "\U0002f843",
    "\u5555": "\ufa79",
    "\u5563": "\U0002f844",
    "\u5584": "\U0002f845\U0002f846",
    "\u5587": "\uf90b",
    "\u5599": "\ufa7a\U0002f847",
    "\u559d": "\ufa36\ufa78",
    "\u55ab": "\U0002f848",
    "\u55b3": "\U0002f849",
    "\u55c0": "\ufa0d",
    "\u55c2": "\U0002f84a",
    "\u55e2": "\ufa7b",
    "\u5606": "\ufa37\U0002f84c",
    "\u5651": "\U0002f84e",
    "\u5668": "\ufa38",
    "\u5674": "\U0002f84f",
    "\u56f9": "\uf9a9",
    "\u5716": "\U0002f84b",
    "\u5717": "\U0002f84d",
    "\u578b": "\U0002f855",
    "\u57ce": "\U0002f852",
    "\u57f4": "\U0002f853",
    "\u580d": "\U0002f854",
    "\u5831": "\U0002f857",
    "\u5832": "\U0002f856",
    "\u5840": "\ufa39",
    "\u585a": "\ufa10\ufa7c",
    "\u585e": "\uf96c",
    "\u58a8": "\ufa3a",
    "\u58ac": "\U0002f858",
    "\u58b3": "\ufa7d",
    "\u58d8": "\uf94a",
    "\u58df": "\uf942",
    "\u58ee": "\U0002f851",
    "\u58f2": "\U0002f85a",
    "\u58f7": "\U0002f85b",
    "\u5906": "\U0002f85c",
    "\u591a": "\U0002f85d",
    "\u5922": "\U0002f85e",
    "\u5944": "\ufa7e",
    "\u5948": "\uf90c",
    "\u5951": "\uf909",
    "\u5954": "\ufa7f",
    "\u5962": "\U0002f85f",
    "\u5973": "\uf981",
    "\u59d8": "\U0002f865",
    "\u59ec": "\U0002f862",
    "\u5a1b": "\U0002f863",
    "\u5a27": "\U0002f864",
    "\u5a62": "\ufa80",
    "\u5a66": "\U0002f866",
    "\u5ab5": "\U0002f986",
    "\u5b08": "\U0002f869",
    "\u5b28": "\ufa81",
    "\u5b3e": "\U0002f86a\U0002f86b",
    "\u5b85": "\ufa04",
    "\u5bc3": "\U0002f86d",
    "\u5bd8": "\U0002f86e",
    "\u5be7": "\uf95f\uf9aa\U0002f86f",
    "\u5bee": "\uf9bc",
    "\u5bf3": "\U0002f870",
    "\u5bff": "\U0002f872",
    "\u5c06": "\U0002f873",
    "\u5c22": "\U0002f875",
    "\u5c3f": "\uf9bd",
    "\u5c60": "\U0002f877",
    "\u5c62": "\uf94b",
    "\u5c64": "\ufa3b",
    "\u5c65": "\uf9df",
    "\u5c6e": "\ufa3c\U0002f878",
    "\u5c8d": "\U0002f87a",
    "\u5cc0": "\U0002f879",
    "\u5d19": "\uf9d5",
    "\u5d43": "\U0002f87c",
    "\u5d50": "\uf921",
    "\u5d6b": "\U0002f87f",
    "\u5d6e": "\U0002f87e",
    "\u5d7c": "\U0002f880",
    "\u5db2": "\U0002f9f4",
    "\u5dba": "\uf9ab",
    "\u5de1": "\U0002f881",
    "\u5de2": "\U0002f882",
    "\u5dfd": "\U0002f884",
    "\u5e28": "\U0002f885",
    "\u5e3d": "\U0002f886",
    "\u5e69": "\U0002f887",
    "\u5e74": "\uf98e",
    "\u5ea6": "\ufa01",
    "\u5eb0": "\U0002f88b",
    "\u5eb3": "\U0002f88c",
    "\u5eb6": "\U0002f88d",
    "\u5ec9": "\uf9a2",
    "\u5eca": "\uf928\U0002f88e",
    "\u5ed2": "\ufa82",
    "\u5ed3": "\ufa0b",
    "\u5ed9": "\ufa83",
    "\u5eec": "\uf982",
    "\u5efe": "\U0002f890",
    "\u5f04": "\uf943",
    "\u5f22": "\U0002f894\U0002f895",
    "\u5f53": "\U0002f874",
    "\u5f62": "\U0002f899",
    "\u5f69": "\ufa84",
    "\u5f6b": "\U0002f89a",
    "\u5f8b": "\uf9d8",
    "\u5f9a": "\U0002f89c",
    "\u5fa9": "\uf966",
    "\u5fad": "\ufa85",
    "\u5fcd": "\U0002f89d",
    "\u5fd7": "\U0002f89e",
    "\u5ff5": "\uf9a3",
    "\u5ff9": "\U0002f89f",
    "\u6012": "\uf960",
    "\u601c": "\uf9ac",
    "\u6075": "\ufa6b",
    "\u6081": "\U0002f8a0",
    "\u6094": "\ufa3d\U0002f8a3",
    "\u60c7": "\U0002f8a5",
    "\u60d8": "\ufa86",
    "\u60e1": "\uf9b9",
    "\u6108": "\ufa88",
    "\u6144": "\uf9d9",
    "\u6148": "\U0002f8a6",
    "\u614c": "\U0002f8a7\U0002f8a9",
    "\u614e": "\ufa87\U0002f8a8",
    "\u6160": "\ufa8a",
    "\u6168": "\ufa3e",
    "\u617a": "\U0002f8aa",
    "\u618e": "\ufa3f\ufa89\U0002f8ab",
    "\u6190": "\uf98f",
    "\u61a4": "\U0002f8ad",
    "\u61af": "\U0002f8ae",
    "\u61b2": "\U0002f8ac",
    "\u61de": "\U0002f8af",
    "\u61f2": "\ufa40\ufa8b\U0002f8b0",
    "\u61f6": "\uf90d\U0002f8b1",
    "\u6200": "\uf990",
    "\u6210": "\U0002f8b2",
    "\u621b": "\U0002f8b3",
    "\u622e": "\uf9d2",
    "\u6234": "\ufa8c",
    "\u625d": "\U0002f8b4",
    "\u62b1": "\U0002f8b5",
    "\u62c9": "\uf925",
    "\u62cf": "\uf95b",
    "\u62d3": "\ufa02",
    "\u62d4": "\U0002f8b6",
    "\u62fc": "\U0002f8ba",
    "\u62fe": "\uf973",
    "\u633d": "\U0002f8b9",
    "\u6350": "\U0002f8b7",
    "\u6368": "\U0002f8bb",
    "\u637b": "\uf9a4",
    "\u6383": "\U0002f8bc",
    "\u63a0": "\uf975",
    "\u63a9": "\U0002f8c1",
    "\u63c4": "\ufa8d",
    "\u63c5": "\U0002f8c0",
    "\u63e4": "\U0002f8bd",
    "\u641c": "\ufa8e",
    "\u6422": "\U0002f8bf",
    "\u6452": "\ufa8f",
    "\u6469": "\U0002f8c3",
    "\u6477": "\U0002f8c6",
    "\u647e": "\U0002f8c4",
    "\u649a": "\uf991",
    "\u649d": "\U0002f8c5",
    "\u64c4": "\uf930",
    "\u654f": "\ufa41\U0002f8c8",
    "\u6556": "\ufa90",
    "\u656c": "\U0002f8c9",
    "\u6578": "\uf969",
    "\u6599": "\uf9be",
    "\u65c5": "\uf983",
    "\u65e2": "\ufa42",
    "\u65e3": "\U0002f8cb",
    "\u6613": "\uf9e0",
    "\u6649": "\U0002f8cd",
    "\u6674": "\ufa12\ufa91",
    "\u6688": "\uf9c5",
    "\u6691": "\ufa43\U0002f8cf",
    "\u669c": "\U0002f8d5",
    "\u66b4": "\ufa06",
    "\u66c6": "\uf98b",
    "\u66f4": "\uf901",
    "\u66f8": "\U0002f8cc",
    "\u6700": "\U0002f8d4",
    "\u6717": "\uf929\ufa92\U0002f8d8",
    "\u671b": "\ufa93\U0002f8d9",
    "\u6721": "\U0002f8da",
    "\u674e": "\uf9e1",
    "\u6753": "\U0002f8dc",
    "\u6756": "\ufa94",
    "\u675e": "\U0002f8db",
    "\u677b": "\uf9c8",
    "\u6785": "\U0002f8e0",
    "\u6797": "\uf9f4",
    "\u67f3": "\uf9c9",
    "\u67fa": "\U0002f8df",
    "\u6817": "\uf9da",
    "\u681f": "\U0002f8e5",
    "\u6852": "\U0002f8e1",
    "\u6881": "\uf97a",
    "\u6885": "\ufa44\U0002f8e2",
    "\u688e": "\U0002f8e4",
    "\u68a8": "\uf9e2",
    "\u6914": "\U0002f8e6",
    "\u6942": "\U0002f8e8",
    "\u69a3": "\U0002f8e9",
    "\u69ea": "\U0002f8ea",
    "\u6a02": "\uf914\uf95c\uf9bf",
    "\u6a13": "\uf94c",
    "\u6aa8": "\U0002f8eb",
    "\u6ad3": "\uf931",
    "\u6adb": "\U0002f8ed",
    "\u6b04": "\uf91d",
    "\u6b21": "\U0002f8ef",
    "\u6b54": "\U0002f8f1",
    "\u6b72": "\U0002f8f3",
    "\u6b77": "\uf98c",
    "\u6b79": "\ufa95",
    "\u6b9f": "\U0002f8f4",
    "\u6bae": "\uf9a5",
    "\u6bba": "\uf970\ufa96\U0002f8f5",
    "\u6bbb": "\U0002f8f6",
    "\u6c4e": "\U0002f8fa",
    "\u6c67": "\U0002f8fe",
    "\u6c88": "\uf972",
    "\u6cbf": "\U0002f8fc",
    "\u6ccc": "\uf968",
    "\u6ccd": "\U0002f8fd",
    "\u6ce5": "\uf9e3",
    "\u6d16": "\U0002f8ff",
    "\u6d1b": "\uf915",
    "\u6d1e": "\ufa05",
    "\u6d34": "\U0002f907",
    "\u6d3e": "\U0002f900",
    "\u6d41": "\uf9ca\ufa97\U0002f902",
    "\u6d69": "\U0002f903",
    "\u6d6a": "\uf92a",
    "\u6d77": "\ufa45\U0002f901",
    "\u6d78": "\U0002f904",
    "\u6d85": "\U0002f905",
    "\u6dcb": "\uf9f5",
    "\u6dda": "\uf94d",
    "\u6dea": "\uf9d6",
    "\u6df9": "\U0002f90e",
    "\u6e1a": "\ufa46",
    "\u6e2f": "\U0002f908",
    "\u6e6e": "\U0002f909",
    "\u6e9c": "\uf9cb",
    "\u6eba": "\uf9ec",
    "\u6ec7": "\U0002f90c",
    "\u6ecb": "\ufa99\U0002f90b",
    "\u6ed1": "\uf904",
    "\u6edb": "\ufa98",
    "\u6f0f": "\uf94e",
    "\u6f22": "\ufa47\ufa9a",
    "\u6f23": "\uf992",
    "\u6f6e": "\U0002f90f",
    "\u6fc6": "\U0002f912",
    "\u6feb": "\uf922",
    "\u6ffe": "\uf984",
    "\u701b": "\U0002f915",
    "\u701e": "\ufa9b\U0002f914",
    "\u7039": "\U0002f913",
    "\u704a": "\U0002f917",
    "\u7070": "\U0002f835",
    "\u7077": "\U0002f919",
    "\u707d": "\U0002f918",
    "\u7099": "\uf9fb",
    "\u70ad": "\U0002f91a",
    "\u70c8": "\uf99f",
    "\u70d9": "\uf916",
    "\u7145": "\U0002f91c",
    "\u7149": "\uf993",
    "\u716e": "\ufa48\ufa9c",
    "\u719c": "\U0002f91e",
    "\u71ce": "\uf9c0",
    "\u71d0": "\uf9ee",
    "\u7210": "\uf932",
    "\u721b": "\uf91e",
    "\u7228": "\U0002f920",
    "\u722b": "\ufa49",
    "\u7235": "\ufa9e\U0002f921",
    "\u7250": "\U0002f922",
    "\u7262": "\uf946",
    "\u7280": "\U0002f924",
    "\u7295": "\U0002f925",
    "\u72af": "\ufa9f",
    "\u72c0": "\uf9fa",
    "\u72fc": "\uf92b",
    "\u732a": "\ufa16\ufaa0",
    "\u7375": "\uf9a7",
    "\u737a": "\U0002f928",
    "\u7387": "\uf961\uf9db",
    "\u738b": "\U0002f929",
    "\u73a5": "\U0002f92b",
    "\u73b2": "\uf9ad",
    "\u73de": "\uf917",
    "\u7406": "\uf9e4",
    "\u7409": "\uf9cc",
    "\u7422": "\ufa4a",
    "\u7447": "\U0002f92e",
    "\u745c": "\U0002f92f",
    "\u7469": "\uf9ae",
    "\u7471": "\ufaa1\U0002f930",
    "\u7485": "\U0002f931",
    "\u7489": "\uf994",
    "\u7498": "\uf9ef",
    "\u74ca": "\U0002f932",
    "\u7506": "\ufaa2",
    "\u7524": "\U0002f934",
    "\u753b": "\ufaa3",
    "\u753e": "\U0002f936",
    "\u7559": "\uf9cd",
    "\u7565": "\uf976",
    "\u7570": "\uf962\U0002f938",
    "\u75e2": "\uf9e5",
    "\u7610": "\U0002f93a",
    "\u761d": "\ufaa4",
    "\u761f": "\ufaa5",
    "\u7642": "\uf9c1",
    "\u7669": "\uf90e",
    "\u76ca": "\ufa17\ufaa6",
    "\u76db": "\ufaa7",
    "\u76e7": "\uf933",
    "\u76f4": "\ufaa8\U0002f940",
    "\u7701": "\uf96d",
    "\u771e": "\U0002f945",
    "\u771f": "\U0002f946\U0002f947",
    "\u7740": "\ufaaa",
    "\u774a": "\ufaa9\U0002f948",
    "\u778b": "\U0002f94a",
    "\u77a7": "\ufa9d",
    "\u784e": "\U0002f94e",
    "\u786b": "\uf9ce",
    "\u788c": "\uf93b\U0002f94f",
    "\u7891": "\ufa4b",
    "\u78ca": "\uf947",
    "\u78cc": "\ufaab\U0002f950",
    "\u78fb": "\uf964",
    "\u792a": "\uf985",
    "\u793c": "\ufa18",
    "\u793e": "\ufa4c",
    "\u7948": "\ufa4e",
    "\u7949": "\ufa4d",
    "\u7950": "\ufa4f",
    "\u7956": "\ufa50\U0002f953",
    "\u795d": "\ufa51",
    "\u795e": "\ufa19",
    "\u7965": "\ufa1a",
    "\u797f": "\uf93c",
    "\u798d": "\ufa52",
    "\u798e": "\ufa53",
    "\u798f": "\ufa1b\U0002f956",
    "\u79ae": "\uf9b6",
    "\u79ca": "\uf995",
    "\u79eb": "\U0002f957",
    "\u7a1c": "\uf956",
    "\u7a40": "\ufa54\U0002f959",
    "\u7a4a": "\U0002f95a",
    "\u7a4f": "\U0002f95b",
    "\u7a81": "\ufa55",
    "\u7ab1": "\ufaac",
    "\u7acb": "\uf9f7",
    "\u7aee": "\U0002f95f",
    "\u7b20": "\uf9f8",
    "\u7bc0": "\ufa56\ufaad",
    "\u7bc6": "\U0002f962",
    "\u7bc9": "\U0002f963",
    "\u7c3e": "\uf9a6",
    "\u7c60": "\uf944",
    "\u7c7b": "\ufaae",
    "\u7c92": "\uf9f9",
    "\u7cbe": "\ufa1d",
    "\u7cd2": "\U0002f966",
    "\u7cd6": "\ufa03",
    "\u7ce3": "\U0002f969",
    "\u7ce7": "\uf97b",
    "\u7ce8": "\U0002f968",
    "\u7d00": "\U0002f96a",
    "\u7d10": "\uf9cf",
    "\u7d22": "\uf96a",
    "\u7d2f": "\uf94f",
    "\u7d5b": "\ufaaf",
    "\u7d63": "\U0002f96c",
    "\u7da0": "\uf93d",
    "\u7dbe": "\uf957",
    "\u7dc7": "\U0002f96e",
    "\u7df4": "\uf996\ufa57\ufab0",
    "\u7e02": "\U0002f96f",
    "\u7e09": "\ufa58",
    "\u7e37": "\uf950",
    "\u7e41": "\ufa59",
    "\u7e45": "\U0002f970",
    "\u7f3e": "\ufab1",
    "\u7f72": "\ufa5a",
    "\u7f79": "\uf9e6",
    "\u7f7a": "\U0002f976",
    "\u7f85": "\uf90f",
    "\u7f95": "\U0002f978",
    "\u7f9a": "\uf9af",
    "\u7fbd": "\ufa1e",
    "\u7ffa": "\U0002f979",
    "\u8001": "\uf934",
    "\u8005": "\ufa5b\ufab2\U0002f97a",
    "\u8046": "\uf9b0",
    "\u8060": "\U0002f97d",
    "\u806f": "\uf997",
    "\u8070": "\U0002f97f",
    "\u807e": "\uf945",
    "\u808b": "\uf953",
    "\u80ad": "\U0002f8d6",
    "\u80b2": "\U0002f982",
    "\u8103": "\U0002f983",
    "\u813e": "\U0002f985",
    "\u81d8": "\uf926",
    "\u81e8": "\uf9f6",
    "\u81ed": "\ufa5c",
    "\u8201": "\U0002f893\U0002f98b",
    "\u8204": "\U0002f98c",
    "\u8218": "\ufa6d",
    "\u826f": "\uf97c",
    "\u8279": "\ufa5d\ufa5e",
    "\u828b": "\U0002f990",
    "\u8291": "\U0002f98f",
    "\u829d": "\U0002f991",
    "\u82b1": "\U0002f993",
    "\u82b3": "\U0002f994",
    "\u82bd": "\U0002f995",
    "\u82e5": "\uf974\U0002f998",
    "\u82e6": "\U0002f996",
    "\u831d": "\U0002f999",
    "\u8323": "\U0002f99c",
    "\u8336": "\uf9fe",
    "\u8352": "\ufab3",
    "\u8353": "\U0002f9a0",
    "\u8363": "\U0002f99a",
    "\u83ad": "\U0002f99b",
    "\u83bd": "\U0002f99d",
    "\u83c9": "\uf93e",
    "\u83ca": "\U0002f9a1",
    "\u83cc": "\U0002f9a2",
    "\u83dc": "\U0002f9a3",
    "\u83e7": "\U0002f99e",
    "\u83ef": "\ufab4",
    "\u83f1": "\uf958",
    "\u843d": "\uf918",
    "\u8449": "\uf96e",
    "\u8457": "\ufa5f\U0002f99f",
    "\u84ee": "\uf999",
    "\u84f1": "\U0002f9a8",
    "\u84f3": "\U0002f9a9",
    "\u84fc": "\uf9c2",
    "\u8516": "\U0002f9aa",
    "\u8564": "\U0002f9ac",
    "\u85cd": "\uf923",
    "\u85fa": "\uf9f0",
    "\u8606": "\uf935",
    "\u8612": "\ufa20",
    "\u862d": "\uf91f",
    "\u863f": "\uf910",
    "\u8650": "\U0002f9b3",
    "\u865c": "\uf936\U0002f9b4",
    "\u8667": "\U0002f9b5",
    "\u8669": "\U0002f9b6",
    "\u8688": "\U0002f9b8",
    "\u86a9": "\U0002f9b7",
    "\u86e2": "\U0002f9ba",
    "\u870e": "\U0002f9b9",
    "\u8728": "\U0002f9bc",
    "\u876b": "\U0002f9bd",
    "\u8779": "\ufab5\U0002f9bb",
    "\u8786": "\U0002f9be",
    "\u87ba": "\uf911",
    "\u87e1": "\U0002f9c0",
    "\u8801": "\U0002f9c1",
    "\u881f": "\uf927",
    "\u884c": "\ufa08",
    "\u8860": "\U0002f9c3",
    "\u8863": "\U0002f9c4",
    "\u88c2": "\uf9a0",
    "\u88cf": "\uf9e7",
    "\u88d7": "\U0002f9c6",
    "\u88de": "\U0002f9c7",
    "\u88e1": "\uf9e8",
    "\u88f8": "\uf912",
    "\u88fa": "\U0002f9c9",
    "\u8910": "\ufa60",
    "\u8941": "\ufab6",
    "\u8964": "\uf924",
    "\u8986": "\ufab7",
    "\u898b": "\ufa0a",
    "\u8996": "\ufa61\ufab8",
    "\u8aa0": "\U0002f9cf",
    "\u8aaa": "\uf96f\uf9a1",
    "\u8abf": "\ufab9",
    "\u8acb": "\ufabb",
    "\u8ad2": "\uf97d",
    "\u8ad6": "\uf941",
    "\u8aed": "\ufabe\U0002f9d0",
    "\u8af8": "\ufa22\ufaba",
    "\u8afe": "\uf95d\ufabd",
    "\u8b01": "\ufa62\ufabc",
    "\u8b39": "\ufa63\ufabf",
    "\u8b58": "\uf9fc",
    "\u8b80": "\uf95a",
    "\u8b8a": "\ufac0\U0002f9d1",
    "\u8c48": "\uf900",
    "\u8c55": "\U0002f9d2",
    "\u8cab": "\U0002f9d4",
    "\u8cc1": "\U0002f9d5",
    "\u8cc2": "\uf948",
    "\u8cc8": "\uf903",
    "\u8cd3": "\ufa64",
    "\u8d08": "\ufa65\ufac1",
    "\u8d1b": "\U0002f9d6",
    "\u8d77": "\U0002f9d7",
    "\u8dbc": "\U0002f9db",
    "\u8dcb": "\U0002f9da",
    "\u8def": "\uf937",
    "\u8df0": "\U0002f9dc",
    "\u8eca": "\uf902",
    "\u8ed4": "\U0002f9de",
    "\u8f26": "\uf998",
    "\u8f2a": "\uf9d7",
    "\u8f38": "\ufac2\U0002f9df",
    "\u8f3b": "\ufa07",
    "\u8f62": "\uf98d",
    "\u8f9e": "\U0002f98d",
    "\u8fb0": "\uf971",
    "\u8fb6": "\ufa66",
    "\u9023": "\uf99a",
    "\u9038": "\ufa25\ufa67",
    "\u9072": "\ufac3",
    "\u907c": "\uf9c3",
    "\u908f": "\uf913",
    "\u9094": "\U0002f9e2",
    "\u90ce": "\uf92c",
    "\u90de": "\ufa2e",
    "\u90f1": "\U0002f9e3",
    "\u90fd": "\ufa26",
    "\u9111": "\U0002f9e4",
    "\u911b": "\U0002f9e6",
    "\u916a": "\uf919",
    "\u9199": "\ufac4",
    "\u91b4": "\uf9b7",
    "\u91cc": "\uf9e9",
    "\u91cf": "\uf97e",
    "\u91d1": "\uf90a",
    "\u9234": "\uf9b1",
    "\u9238": "\U0002f9e7",
    "\u9276": "\ufac5",
    "\u927c": "\U0002f9ea",
    "\u92d7": "\U0002f9e8",
    "\u92d8": "\U0002f9e9",
    "\u9304": "\uf93f",
    "\u934a": "\uf99b",
    "\u93f9": "\U0002f9eb",
    "\u9415": "\U0002f9ec",
    "\u958b": "\U0002f9ee",
    "\u95ad": "\uf986",
    "\u95b7": "\U0002f9f0",
    "\u962e": "\uf9c6",
    "\u964b": "\uf951",
    "\u964d": "\ufa09",
    "\u9675": "\uf959",
    "\u9678": "\uf9d3",
    "\u967c": "\ufac6",
    "\u9686": "\uf9dc",
    "\u96a3": "\uf9f1",
    "\u96b7": "\ufa2f",
    "\u96b8": "\uf9b8",
    "\u96c3": "\U0002f9f3",
    "\u96e2": "\uf9ea",
    "\u96e3": "\ufa68\ufac7",
    "\u96f6": "\uf9b2",
    "\u96f7": "\uf949",
    "\u9723": "\U0002f9f5",
    "\u9732": "\uf938",
    "\u9748": "\uf9b3",
    "\u9756": "\ufa1c\ufac8",
    "\u97db": "\ufac9",
    "\u97e0": "\U0002f9fa",
    "\u97ff": "\ufa69\ufaca",
    "\u980b": "\ufacb\U0002f9fe\U0002f9ff",
    "\u9818": "\uf9b4",
    "\u9829": "\U0002fa00",
    "\u983b": "\ufa6a\ufacc",
    "\u985e": "\uf9d0",
    "\u98e2": "\U0002fa02",
    "\u98ef": "\ufa2a",
    "\u98fc": "\ufa2b",
    "\u9928": "\ufa2c",
    "\u9929": "\U0002fa04",
    "\u99a7": "\U0002fa05",
    "\u99c2": "\U0002fa06",
    "\u99f1": "\uf91a",
    "\u99fe": "\U0002fa07",
    "\u9a6a": "\uf987",
    "\u9b12": "\ufacd\U0002fa0a",
    "\u9b6f": "\uf939",
    "\u9c40": "\U0002fa0b",
    "\u9c57": "\uf9f2",
    "\u9cfd": "\U0002fa0c",
    "\u9d67": "\U0002fa0f",
    "\u9db4": "\ufa2d",
    "\u9dfa": "\uf93a",
    "\u9e1e": "\uf920",
    "\u9e7f": "\uf940",
    "\u9e97": "\uf988",
    "\u9e9f": "\uf9f3",
    "\u9ebb": "\U0002fa15",
    "\u9ece": "\uf989",
    "\u9ef9": "\U0002fa17",
    "\u9efe": "\U0002fa18",
    "\u9f05": "\U0002fa19",
    "\u9f0f": "\U0002fa1a",
    "\u9f16": "\U0002fa1b",
    "\u9f3b": "\U0002fa1c",
    "\u9f43": "\ufad8",
    "\u9f8d": "\uf9c4",
    "\u9f8e": "\ufad9",
    "\u9f9c": "\uf907\uf908\uface",
    "\U00011099": "\U0001109a",
    "\U0001109b": "\U0001109c",
    "\U000110a5": "\U000110ab",
    "\U00011131": "\U0001112e",
    "\U00011132": "\U0001112f",
    "\U00011347": "\U0001134b\U0001134c",
    "\U000114b9": "\U000114bb\U000114bc\U000114be",
    "\U000115b8": "\U000115ba",
    "\U000115b9": "\U000115bb",
    "\U00011935": "\U00011938",
    "\U0001d157": "\U0001d15e",
    "\U0001d158": "\U0001d15f\U0001d160\U0001d161\U0001d162\U0001d163\U0001d164",
    "\U0001d1b9": "\U0001d1bb\U0001d1bd\U0001d1bf",
    "\U0001d1ba": "\U0001d1bc\U0001d1be\U0001d1c0",
    "\U00020122": "\U0002f803",
    "\U0002051c": "\U0002f812",
    "\U00020525": "\U0002f91b",
    "\U0002054b": "\U0002f816",
    "\U0002063a": "\U0002f80d",
    "\U00020804": "\U0002f9d9",
    "\U000208de": "\U0002f9dd",
    "\U00020a2c": "\U0002f834",
    "\U00020b63": "\U0002f838",
    "\U000214e4": "\U0002f859",
    "\U000216a8": "\U0002f860",
    "\U000216ea": "\U0002f861",
    "\U000219c8": "\U0002f86c",
    "\U00021b18": "\U0002f871",
    "\U00021d0b": "\U0002f8f8",
    "\U00021de4": "\U0002f87b",
    "\U00021de6": "\U0002f87d",
    "\U00022183": "\U0002f889",
    "\U0002219f": "\U0002f939",
    "\U00022331": "\U0002f891\U0002f892",
    "\U000226d4": "\U0002f8a4",
    "\U00022844": "\ufad0",
    "\U0002284a": "\ufacf",
    "\U00022b0c": "\U0002f8b8",
    "\U00022bf1": "\U0002f8be",
    "\U0002300a": "\U0002f8ca",
    "\U000232b8": "\U0002f897",
    "\U0002335f": "\U0002f980",
    "\U00023393": "\U0002f989",
    "\U0002339c": "\U0002f98a",
    "\U000233c3": "\U0002f8dd",
    "\U000233d5": "\ufad1",
    "\U0002346d": "\U0002f8e3",
    "\U000236a3": "\U0002f8ec",
    "\U000238a7": "\U0002f8f0",
    "\U00023a8d": "\U0002f8f7",
    "\U00023afa": "\U0002f8f9",
    "\U00023cbc": "\U0002f8fb",
    "\U00023d1e": "\U0002f906",
    "\U00023ed1": "\U0002f90d",
    "\U00023f5e": "\U0002f910",
    "\U00023f8e": "\U0002f911",
    "\U00024263": "\U0002f91d",
    "\U000242ee": "\ufa6c",
    "\U000243ab": "\U0002f91f",
    "\U00024608": "\U0002f923",
    "\U00024735": "\U0002f926",
    "\U00024814": "\U0002f927",
    "\U00024c36": "\U0002f935",
    "\U00024c92": "\U0002f937",
    "\U00024fa1": "\U0002f93b",
    "\U00024fb8": "\U0002f93c",
    "\U00025044": "\U0002f93d",
    "\U000250f2": "\U0002f942",
    "\U000250f3": "\U0002f941",
    "\U00025119": "\U0002f943",
    "\U00025133": "\U0002f944",
    "\U00025249": "\ufad5",
    "\U0002541d": "\U0002f94d",
    "\U00025626": "\U0002f952",
    "\U0002569a": "\U0002f954",
    "\U000256c5": "\U0002f955",
    "\U0002597c": "\U0002f95c",
    "\U00025aa7": "\U0002f95d\U0002f95e",
    "\U00025bab": "\U0002f961",
    "\U00025c80": "\U0002f965",
    "\U00025cd0": "\ufad6",
    "\U00025f86": "\U0002f96b",
    "\U000261da": "\U0002f898",
    "\U00026228": "\U0002f972",
    "\U00026247": "\U0002f973",
    "\U000262d9": "\U0002f975",
    "\U0002633e": "\U0002f977",
    "\U000264da": "\U0002f97b",
    "\U00026523": "\U0002f97c",
    "\U000265a8": "\U0002f97e",
    "\U000267a7": "\U0002f987",
    "\U000267b5": "\U0002f988",
    "\U00026b3c": "\U0002f997",
    "\U00026c36": "\U0002f9a4",
    "\U00026cd5": "\U0002f9a6",
    "\U00026d6b": "\U0002f9a5",
    "\U00026f2c": "\U0002f9ad",
    "\U00026fb1": "\U0002f9b0",
    "\U000270d2": "\U0002f9b1",
    "\U000273ca": "\U0002f9ab",
    "\U00027667": "\U0002f9c5",
    "\U000278ae": "\U0002f9cb",
    "\U00027966": "\U0002f9cc",
    "\U00027ca8": "\U0002f9d3",
    "\U00027ed3": "\ufad7",
    "\U00027f2f": "\U0002f9d8",
    "\U000285d2": "\U0002f9e0",
    "\U000285ed": "\U0002f9e1",
    "\U0002872e": "\U0002f9e5",
    "\U00028bfa": "\U0002f9ed",
    "\U00028d77": "\U0002f9f1",
    "\U00029145": "\U0002f9f6",
    "\U000291df": "\U0002f81c",
    "\U0002921a": "\U0002f9f7",
    "\U0002940a": "\U0002f9fb",
    "\U00029496": "\U0002f9fd",
    "\U000295b6": "\U0002fa01",
    "\U00029b30": "\U0002fa09",
    "\U0002a0ce": "\U0002fa10",
    "\U0002a105": "\U0002fa12",
    "\U0002a20e": "\U0002fa13",
    "\U0002a291": "\U0002fa14",
    "\U0002a392": "\U0002f88f",
    "\U0002a600": "\U0002fa1d",
}


#: The UTF-8 blocks (first byte << 8 | second byte) holding a character that
#: is not NFC-inert (``pattern.inert_char``) on Unicode 13.0, 14.0 or 15.1,
#: as inclusive runs; ``tests/test_nfcspell.py`` checks that every such
#: character of the running Python is in one (``_scan_blocks``). Only a
#: character that is not inert can change the one before it under NFC.
_NOT_INERT_BLOCKS = (
    (0xCC80, 0xCCBF), (0xCD80, 0xCDAF), (0xCDB4, 0xCDB4), (0xCDBE, 0xCDBE),
    (0xCE87, 0xCE87), (0xD283, 0xD289), (0xD691, 0xD6BD), (0xD6BF, 0xD6BF),
    (0xD781, 0xD782), (0xD784, 0xD785), (0xD787, 0xD787), (0xD890, 0xD89A),
    (0xD98B, 0xD99F), (0xD9B0, 0xD9B0), (0xDB96, 0xDB9C), (0xDB9F, 0xDBA4),
    (0xDBA7, 0xDBA8), (0xDBAA, 0xDBAD), (0xDC91, 0xDC91), (0xDCB0, 0xDCBF),
    (0xDD80, 0xDD8A), (0xDEA6, 0xDEB0), (0xDFAB, 0xDFB3), (0xDFBD, 0xDFBD),
    (0xE0A0, 0xE0BF), (0xE180, 0xE182), (0xE184, 0xE187), (0xE18D, 0xE18D),
    (0xE19C, 0xE1A0), (0xE1A2, 0xE1A2), (0xE1A4, 0xE1A4), (0xE1A8, 0xE1B0),
    (0xE1B3, 0xE1B3), (0xE1B7, 0xE1B7), (0xE1BD, 0xE1BF), (0xE280, 0xE280),
    (0xE283, 0xE284), (0xE28C, 0xE28C), (0xE2AB, 0xE2AB), (0xE2B3, 0xE2B3),
    (0xE2B5, 0xE2B5), (0xE2B7, 0xE2B7), (0xE380, 0xE380), (0xE382, 0xE382),
    (0xEA99, 0xEA9B), (0xEAA0, 0xEAA0), (0xEAA2, 0xEAAB), (0xEAAF, 0xEAAF),
    (0xEFA4, 0xEFAD), (0xEFB8, 0xEFB8), (0xF090, 0xF091), (0xF093, 0xF093),
    (0xF096, 0xF096), (0xF09B, 0xF09E), (0xF0AF, 0xF0AF), (0xF3A0, 0xF3A0),
)


def _scan() -> dict:
    """Every code point whose NFC is one other code point: ``{source:
    target}``, by asking ``unicodedata`` about all of them (about a
    second; the tests use it to check ``_SINGLETON_RUNS``)."""
    found = {}
    for cp in itertools.chain(range(0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not unicodedata.is_normalized("NFC", ch):
            form = unicodedata.normalize("NFC", ch)
            if len(form) == 1:
                found[ch] = form
    return found


def _scan_starters() -> dict:
    """``{starter: str of code points}``: every code point but a Hangul
    syllable whose NFD differs from it, under the first code point of its
    NFD (a second or so; the tests use it to check ``_BY_STARTER``)."""
    found = {}
    for cp in itertools.chain(range(0xAC00), range(0xD7A4, 0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not unicodedata.is_normalized("NFD", ch):
            start = unicodedata.normalize("NFD", ch)[0]
            found[start] = found.get(start, "") + ch
    return found


@functools.lru_cache(maxsize=1)
def _targets() -> dict:
    """``{target: sources}`` from ``_SINGLETON_RUNS`` (strings of code points)."""
    out = {}
    for first, targets in _SINGLETON_RUNS:
        for k, target in enumerate(targets):
            out[target] = out.get(target, "") + chr(first + k)
    return out


def singleton_sources(ch: str) -> str:
    """The code points other than ``ch`` whose NFC is ``ch`` (a str, maybe
    empty): ``K`` from U+212A KELVIN SIGN, ``;`` from U+037E, ``Å`` from
    U+212B, a unified ideograph from its compatibility ideographs."""
    return _targets().get(ch, "")


def partials(ch: str) -> list:
    """The single characters whose NFD is the starter of ``NFD(ch)`` followed
    by a proper subsequence of its other code points (in order), for a
    character ``ch`` that decomposes; ``[]`` if it does not. Raises
    ``ValueError`` if ``NFD(ch)`` has over ``MAX_MARKS`` code points after
    its starter."""
    form = unicodedata.normalize("NFD", ch)
    if form == ch:
        return []
    head, rest = form[0], form[1:]
    if len(rest) > MAX_MARKS:
        raise ValueError(f"U+{ord(ch):04X} decomposes into {len(form)} code points")
    out = []
    for size in range(len(rest)):
        for picked in itertools.combinations(rest, size):
            made = unicodedata.normalize("NFC", head + "".join(picked))
            if len(made) == 1 and made not in out:
                out.append(made)
    return out


def _inert(ch: str) -> bool:
    from optmem.recall.pattern import inert_char
    return inert_char(ch)


@functools.lru_cache(maxsize=1024)
def spellings(ch: str):
    """``(whole, heads)`` for a character ``ch`` of an NFC text, or None.

    Every raw text that NFC turns into text beginning with ``ch`` is one of
    ``whole`` or one of ``heads`` followed by one or more non-ASCII
    characters. ``whole``: ``ch`` and every code point whose NFC begins with
    ``ch`` (singletons such as U+212A for ``K``, composition exclusions such
    as U+0958 for U+0915). ``heads``, for a ``ch`` that decomposes: every
    code point whose NFD begins with the starter of ``NFD(ch)`` (``À`` for
    ``ạ``: NFC of ``À`` + U+0323 is ``ạ`` + U+0300), or for a Hangul
    syllable its partial compositions (``partials``). Both are tuples of
    strings. None when ``ch`` is not NFC-inert (a mark or a jamo: NFC may
    move or create it), or this Python's Unicode version is not in
    ``VERIFIED``."""
    if unicodedata.unidata_version not in VERIFIED or not _inert(ch):
        return None
    nfd = unicodedata.normalize("NFD", ch)
    family = _BY_STARTER.get(nfd[0], "")
    normalize = unicodedata.normalize
    whole = (ch,) + tuple(c for c in family if c != ch and normalize("NFC", c).startswith(ch))
    if nfd == ch:
        return whole, ()
    if "\uac00" <= ch <= "\ud7a3":
        try:
            return whole, tuple(partials(ch))
        except ValueError:  # pragma: no cover - a Hangul syllable has at most 3 jamo
            return None
    heads = (nfd[0],) + tuple(c for c in family if c != ch)
    return whole, heads


def _scan_blocks() -> set:
    """The UTF-8 blocks (as ``_NOT_INERT_BLOCKS``) of every code point that
    is not NFC-inert on this Python (a second or so; for the tests)."""
    found = set()
    for cp in itertools.chain(range(0x80, 0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not _inert(ch):
            data = ch.encode("utf-8")
            found.add(data[0] << 8 | data[1])
    return found


@functools.lru_cache(maxsize=1)
def composer_table() -> bytes:
    """65,536 bytes, one for each pair of bytes ``b1 b2``: 1 where a
    character whose UTF-8 begins with ``b1 b2`` may change the character
    before it under NFC (it is not NFC-inert: a mark, a jamo, or not its
    own NFC), else 0. ASCII first bytes are 0: an ASCII character is inert.
    On a Unicode version not in ``VERIFIED`` every non-ASCII first byte is
    1 (nothing is trusted). ``optmem.recall._scan`` reads it after a literal."""
    table = bytearray(65536)
    if unicodedata.unidata_version not in VERIFIED:
        table[0x8000:] = b"\x01" * 0x8000
        return bytes(table)
    for first, last in _NOT_INERT_BLOCKS:
        table[first:last + 1] = b"\x01" * (last + 1 - first)
    return bytes(table)
