"""rag_app tracing its own work with MLflow: the retrieval is a RETRIEVER span whose documents are
the contexts (read from the trace), and the app returns only its answer."""

import mlflow
from mlflow.entities import Document, SpanType

import rag_app


@mlflow.trace(span_type=SpanType.RETRIEVER)
def retrieve(question: str, top_k: int) -> list[Document]:
    contexts = rag_app.answer(question, top_k=top_k)["contexts"]
    return [Document(page_content=c["text"], metadata={"doc_uri": c["doc_id"], "score": c["score"]}) for c in contexts]


@mlflow.trace
def answer(question: str, top_k: int = 2) -> str:
    retrieve(question, top_k)
    return rag_app.answer(question, top_k=top_k)["answer"]
