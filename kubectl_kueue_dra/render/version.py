"""Text output of ``version``: one ``Label: value`` line per fact, like ``kubectl version``."""

from typing import Any


def version_text(doc: dict[str, Any]) -> str:
    client = doc["clientVersion"]
    build = "binary" if client.get("frozen") else f"Python {client.get('python')}"
    lines = [f"Plugin Version: {client['kueueDra']} ({build}, {client.get('platform')})"]
    if "serverVersion" not in doc:
        return "\n".join(lines)
    server = doc.get("serverVersion")
    if server is None and doc.get("source", "").startswith("snapshot"):
        lines.append("Server Version: unknown (offline snapshot)")
    elif server is not None:
        lines.append(f"Server Version: {server.get('gitVersion') or 'unknown'}")
    openshift = doc.get("openshift")
    if openshift:
        lines.append(f"OpenShift Version: {openshift['version'] or 'unknown (' + str(openshift['problem']) + ')'}")
    kueue = doc.get("kueue")
    if kueue is None:
        return "\n".join(lines)
    if kueue.get("version"):
        lines.append(f"Kueue Version: {kueue['version']} (from the {kueue.get('versionSource')})")
    elif kueue.get("image"):
        lines.append(f"Kueue Version: unknown (image {kueue['image']})")
    else:
        forbidden = next((u for u in doc.get("unreadable") or [] if "deployments.apps" in u), None)
        lines.append(f"Kueue Version: unknown ({forbidden or 'no kueue-controller-manager Deployment found'})")
    if kueue.get("operatorVersion"):
        lines.append(f"Kueue Operator Version: {kueue['operatorVersion']}")
    deployment = kueue.get("deployment")
    if deployment:
        lines.append(f"Kueue Controller: Deployment {deployment['namespace']}/{deployment['name']}"
                     + (f" ({kueue['image']})" if kueue.get("image") else ""))
    if kueue.get("config"):
        rendered = kueue.get("renderedConfigMap")
        lines.append(f"Kueue Config: {kueue.get('configDescription')}"
                     + (f", rendered into ConfigMap {rendered}" if rendered else ""))
    elif str(kueue.get("configDescription")).startswith("unknown"):
        lines.append(f"Kueue Config: {kueue['configDescription']}")  # a 403, not "not found"
    else:
        lines.append(f"Kueue Config: not found ({kueue.get('problem') or 'unknown reason'})")
    lines += [f"Partial: {u}" for u in doc.get("unreadable") or []]
    return "\n".join(lines)
