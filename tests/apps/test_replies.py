"""What an app may answer, read into one shape; anything else is a malformed reply with its reason."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from harness.apps.replies import AppContext, MalformedReply, read_reply


def test_a_string_is_the_answer_alone():
    reply = read_reply("Paris")
    assert (reply.answer, reply.contexts) == ("Paris", None)


def test_answer_and_contexts_as_a_pair_or_an_object():
    assert read_reply(("Paris", ["Paris is..."])).contexts == [AppContext("Paris is...")]
    reply = read_reply({"response": "Paris", "retrieved_contexts": [{"content": "P", "id": 7, "score": 1}],
                        "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.5})
    assert reply.answer == "Paris" and reply.contexts == [AppContext("P", "7", 1.0)]
    assert (reply.input_tokens, reply.output_tokens, reply.cost_usd) == (10, 2, 0.5)


def test_langchain_like_documents_with_their_metadata():
    document = SimpleNamespace(page_content="Berlin is...", metadata={"source": "germany"})
    reply = read_reply(SimpleNamespace(answer="Berlin", source_documents=[document]))
    assert reply.contexts == [AppContext("Berlin is...", "germany")]


@pytest.mark.parametrize("value, reason", [
    ({"text": "Paris"}, "has no answer"),
    ({"answer": 3}, "answer must be a string, got int"),
    ({"answer": "x", "contexts": "one"}, "contexts must be a list, got str"),
    ({"answer": "x", "contexts": [{"doc_id": "a"}]}, "contexts[0] has no text"),
    ({"answer": "x", "contexts": [{"text": "a", "score": "high"}]}, "contexts[0] has score 'high'"),
    ({"answer": "x", "input_tokens": -1}, "input_tokens -1"),
    ({"answer": "x", "cost_usd": "free"}, "cost_usd 'free'"),
    (None, "has no answer"),
])
def test_malformed_replies_say_why(value, reason):
    with pytest.raises(MalformedReply, match=re.escape(reason)):
        read_reply(value)


def test_framework_documents_as_they_come_with_every_name_of_their_document(tmp_path):
    """LangChain, LlamaIndex and Haystack objects (the real packages), read without changes."""
    from haystack import Document as HaystackDocument
    from langchain_core.documents import Document as LangchainDocument
    from llama_index.core.schema import NodeWithScore, TextNode

    langchain = LangchainDocument(page_content="Paris is...", metadata={"source": "/data/docs/france.md"})
    node = NodeWithScore(node=TextNode(text="Berlin is...", id_="n1",
                                       metadata={"file_path": "/data/docs/germany.md", "file_name": "germany.md"}),
                         score=2.5)
    haystack = HaystackDocument(content="Madrid is...", meta={"file_path": "docs/spain.md"}, score=0.5)
    contexts = read_reply({"answer": "x", "source_documents": [langchain, node, haystack]}).contexts
    assert [(c.text, c.doc_id, c.score) for c in contexts] == [
        ("Paris is...", "/data/docs/france.md", None), ("Berlin is...", "/data/docs/germany.md", 2.5),
        ("Madrid is...", "docs/spain.md", 0.5)]
    assert contexts[1].names[:3] == ("/data/docs/germany.md", "germany.md", "n1")
    assert contexts[2].names == ("docs/spain.md", haystack.id)  # Haystack's id: a hash of its content
