"""``explain -f`` on files as users write them: several documents, the ResourceClaimTemplate and
DeviceClass beside the Job, generateName, stdin, several workloads in one file."""

import json
from pathlib import Path

from testenv.clirun import run  # in process (tests/clirun.py)

MIG = str(Path(__file__).resolve().parents[2] / "examples" / "mig-partitionable")

TEMPLATE = """apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: mig-2x3g}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: mig.nvidia.com
        count: 2
        selectors:
        - cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '3g.20gb'"}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  {name}
  namespace: ml-research
  labels: {{kueue.x-k8s.io/queue-name: research}}
spec:
  parallelism: {pods}
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{{name: mig, resourceClaimTemplateName: {template}}}]
      containers:
      - {{name: t, image: busybox, resources: {{claims: [{{name: mig}}]}}}}
"""


def job(name="name: eval", pods=1, template="mig-2x3g"):
    return JOB.format(name=name, pods=pods, template=template)


def explain_json(*args, input=None):
    proc = run("explain", *args, "--from", MIG, "-o", "json", input=input)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_template_in_the_file_is_used_before_the_cluster(tmp_path):
    """The template exists only in the file (in the v1beta1 shape, without a namespace: it goes
    to the Job's); the charge is the file's, and a finding says where it came from."""
    f = tmp_path / "job.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml-research}\n---\n" + TEMPLATE + "---\n" + job())
    doc = explain_json("-f", str(f))
    assert doc["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}  # 2 x 19968Mi (3g.20gb)
    codes = {x["code"]: x["message"] for x in doc["findings"]}
    assert "ClaimTemplateMissing" not in codes
    assert codes["FromManifest"] == f"taken from -f {f} before the cluster's: ResourceClaimTemplate mig-2x3g"
    assert "Namespace" in codes["ManifestObjectsNotRead"]
    # Without the template in the file, the cluster has none of that name.
    f.write_text(job())
    assert "ClaimTemplateMissing" in {x["code"] for x in explain_json("-f", str(f))["findings"]}


def test_file_template_wins_over_the_cluster_one_of_the_same_name(tmp_path):
    f = tmp_path / "job.yaml"
    f.write_text(TEMPLATE.replace("mig-2x3g", "mig-1g5gb") + "---\n" + job(template="mig-1g5gb"))
    # the cluster's mig-1g5gb asks one 1g.5gb device (4864Mi); the file's two 3g.20gb devices
    assert explain_json("-f", str(f))["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}


def test_device_class_in_the_file_is_used(tmp_path):
    """The file's DeviceClass mig.nvidia.com (only 1g.5gb devices) replaces the cluster's (every
    MIG device): the counter's MAX is taken over the file's class."""
    plain = TEMPLATE.replace("        selectors:\n        - cel: {expression: \"device.attributes['gpu.nvidia.com'].profile"
                             " == '3g.20gb'\"}\n", "").replace("count: 2", "count: 1")
    assert "selectors" not in plain
    f = tmp_path / "job.yaml"
    f.write_text(plain + "---\n" + job())
    cluster = next(ln for ln in explain_json("-f", str(f))["podSets"][0]["lines"] if ln["kind"] == "counter")
    dc = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: mig.nvidia.com}\nspec:\n"
          "  selectors: [{cel: {expression: \"device.driver == 'gpu.nvidia.com' && "
          "device.attributes['gpu.nvidia.com'].type == 'mig' && "
          "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'\"}}]\n")
    f.write_text(dc + "---\n" + plain + "---\n" + job())
    doc = explain_json("-f", str(f))
    line = next(ln for ln in doc["podSets"][0]["lines"] if ln["kind"] == "counter")
    assert (cluster["matchedDevices"], line["matchedDevices"]) == (224, 112)
    assert line["counterValue"] == "4864Mi" and cluster["counterValue"] != "4864Mi"
    used = next(x for x in doc["findings"] if x["code"] == "FromManifest")["message"]
    assert used.endswith("ResourceClaimTemplate mig-2x3g, DeviceClass mig.nvidia.com")


def test_generate_name_is_shown_as_the_prefix(tmp_path):
    text = run("explain", "-f", "-", "--from", MIG, input=TEMPLATE + "---\n" + job(name="generateName: train-")).stdout
    assert text.splitlines()[0].startswith("What-if: Job ml-research/train- (name generated, not submitted)")
    assert "None" not in text
    doc = explain_json("-f", "-", input=TEMPLATE + "---\n" + job(name="generateName: train-"))
    assert doc["manifest"] == {"apiVersion": "batch/v1", "kind": "Job", "namespace": "ml-research", "name": None, "generateName": "train-",
                               "displayName": "train- (generated)"}


def test_several_workloads_one_report_each(tmp_path):
    f = tmp_path / "jobs.yaml"
    f.write_text(TEMPLATE + "---\n" + job(name="name: a") + "---\n" + job(name="name: b", pods=2, template="mig-1g5gb"))
    doc = explain_json("-f", str(f))
    assert doc["kind"] == "List" and [i["manifest"]["name"] for i in doc["items"]] == ["a", "b"]
    assert [i["podSets"][0]["charge"] for i in doc["items"]] == [{"gpu.memory": "39Gi"}, {"gpu.memory": "9728Mi"}]
    # the template of the file is said to be used only where it is named
    used = [[x["message"] for x in i["findings"] if x["code"] == "FromManifest"] for i in doc["items"]]
    assert len(used[0]) == 1 and used[1] == []
    text = run("explain", "-f", str(f), "--from", MIG).stdout
    titles = [line for line in text.splitlines() if line.startswith("What-if:")]
    assert [t.split()[2] for t in titles] == ["ml-research/a", "ml-research/b"]


def test_kubectl_list_output_is_read_item_by_item(tmp_path):
    import yaml

    items = [yaml.safe_load(TEMPLATE), yaml.safe_load(job())]
    doc = explain_json("-f", "-", input=yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    assert doc["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}


def test_json_objects_one_after_another_are_each_read(tmp_path):
    """kubectl reads a JSON file of several objects one after another (``kubectl get -o json >>
    file``): the template of the first object serves the Job of the second; a break in the second
    is a malformed-JSON error naming its line, not a YAML one."""
    import yaml

    f = tmp_path / "job.json"
    f.write_text(json.dumps(yaml.safe_load(TEMPLATE), indent=2) + "\n" + json.dumps(yaml.safe_load(job())))
    doc = explain_json("-f", str(f))
    assert doc["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}
    f.write_text(json.dumps(yaml.safe_load(TEMPLATE)) + "\n{\n")
    proc = run("explain", "-f", str(f), "--from", MIG)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == \
        [f"error: -f {f}:3: malformed JSON: Expecting property name enclosed in double quotes"]


def test_an_array_of_objects_is_refused_as_kubectl_refuses_it(tmp_path):
    import yaml

    f = tmp_path / "jobs.json"
    f.write_text(json.dumps([yaml.safe_load(TEMPLATE), yaml.safe_load(job())]))
    proc = run("explain", "-f", str(f), "--from", MIG)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        f"error: -f {f}: an array of objects, which kubectl does not apply; make it a List (apiVersion: v1, "
        "kind: List, items: [...]) or one document per object"]


def test_utf16_manifest_with_a_byte_order_mark(tmp_path):
    f = tmp_path / "job.yaml"
    f.write_bytes((TEMPLATE + "---\n" + job()).encode("utf-16"))  # the BOM first, as PowerShell 5 writes
    assert explain_json("-f", str(f))["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}


def test_stdin_is_decoded_as_a_file_is():
    """``-f -`` reads stdin's bytes: UTF-16 with its byte-order mark as a file, bad bytes one error line."""
    text = TEMPLATE + "---\n" + job()
    assert explain_json("-f", "-", input=text.encode("utf-16"))["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}
    assert explain_json("-f", "-", input=text.encode())["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}
    proc = run("explain", "-f", "-", "--from", MIG, input=b"kind: Job\nname: \xff\n")
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        "error: -f -: not UTF-8 text (byte 0xff at line 2, column 7)"]


def test_malformed_template_in_the_file_is_a_named_finding(tmp_path):
    bad = TEMPLATE.replace("count: 2", "count: [2]")
    doc = explain_json("-f", "-", input=bad + "---\n" + job())
    malformed = [x for x in doc["findings"] if x["code"] == "MalformedObject"]
    assert malformed and "ResourceClaimTemplate" in malformed[0]["message"] and doc["partial"] is True


def test_readme_job_file_example_is_real_output():
    root = Path(MIG).parents[1]
    readme = (root / "README.md").read_text()
    command = "kubectl kueue-dra explain -f docs/jobs/mig-train.yaml --from examples/mig-partitionable"
    shown = readme.split(f"$ {command}\n", 1)[1].split("\n```", 1)[0]
    proc = run("explain", "-f", str(root / "docs/jobs/mig-train.yaml"), "--from", MIG)
    assert proc.returncode == 0 and shown == proc.stdout.rstrip("\n").replace(str(root) + "/", "")
