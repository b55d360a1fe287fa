#!/usr/bin/env python3
"""check_k8s_job.py [--run] MAP.yaml MERGE.yaml: the schema check of `sightline-cli scale-out k8s`'s manifests
(issue 38 §3). Each file must parse as YAML (one document) and use only field names of the Kubernetes API objects it
holds (batch/v1 Job, JobSpec, PodTemplateSpec, PodSpec, Container, EnvVar, VolumeMount, Volume,
PersistentVolumeClaimVolumeSource, ResourceRequirements, as the API reference names them), with the values a Job
needs: apiVersion batch/v1, kind Job, a DNS-1123 name, restartPolicy Never or OnFailure, every volumeMount naming a
volume. The map is an Indexed Job (completionMode Indexed, completions and parallelism within 1..10^5, the container
reading JOB_COMPLETION_INDEX from the job-completion-index annotation); the merge a one-pod Job.

--run also runs each container's command here, as the pods would: the map once per completion index with
JOB_COMPLETION_INDEX set, then the merge (the manifests must name a --cli that exists on this machine).
Exit 0 when both pass; 1 with one line per problem; 77 when Python's yaml module is missing."""
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("check_k8s_job.py: SKIP: Python's yaml module is missing (python3-yaml)", file=sys.stderr)
    sys.exit(77)

# Field names per API object (Kubernetes API reference, batch/v1 and core/v1), the ones a Job manifest may hold.
FIELDS = {
    "Job": {"apiVersion", "kind", "metadata", "spec", "status"},
    "ObjectMeta": {"name", "generateName", "namespace", "labels", "annotations", "finalizers", "ownerReferences"},
    "JobSpec": {"activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex", "completionMode", "completions",
                "managedBy", "manualSelector", "maxFailedIndexes", "parallelism", "podFailurePolicy",
                "podReplacementPolicy", "selector", "successPolicy", "suspend", "template",
                "ttlSecondsAfterFinished"},
    "PodTemplateSpec": {"metadata", "spec"},
    "PodSpec": {"activeDeadlineSeconds", "affinity", "containers", "dnsPolicy", "hostname", "imagePullSecrets",
                "initContainers", "nodeName", "nodeSelector", "priorityClassName", "restartPolicy",
                "schedulerName", "securityContext", "serviceAccountName", "subdomain",
                "terminationGracePeriodSeconds", "tolerations", "volumes"},
    "Container": {"args", "command", "env", "envFrom", "image", "imagePullPolicy", "name", "ports", "resources",
                  "securityContext", "volumeMounts", "workingDir"},
    "EnvVar": {"name", "value", "valueFrom"},
    "EnvVarSource": {"configMapKeyRef", "fieldRef", "resourceFieldRef", "secretKeyRef"},
    "ObjectFieldSelector": {"apiVersion", "fieldPath"},
    "ResourceRequirements": {"claims", "limits", "requests"},
    "VolumeMount": {"mountPath", "mountPropagation", "name", "readOnly", "recursiveReadOnly", "subPath",
                    "subPathExpr"},
    "Volume": {"name", "persistentVolumeClaim", "nfs", "hostPath", "emptyDir", "configMap", "secret",
               "downwardAPI", "ephemeral", "csi"},
    "PersistentVolumeClaimVolumeSource": {"claimName", "readOnly"},
}
INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

problems = []


def fields(obj, kind, where):
    if not isinstance(obj, dict):
        problems.append(f"{where}: a {kind} must be a mapping, not {type(obj).__name__}")
        return {}
    for k in obj:
        if k not in FIELDS[kind]:
            problems.append(f"{where}.{k}: not a field of {kind}")
    return obj


def need(cond, what):
    if not cond:
        problems.append(what)


def check(path, indexed):
    with open(path) as f:
        docs = list(yaml.safe_load_all(f))
    need(len(docs) == 1, f"{path}: {len(docs)} YAML documents, expected one Job")
    job = fields(docs[0], "Job", path)
    need(job.get("apiVersion") == "batch/v1", f"{path}: apiVersion {job.get('apiVersion')!r}, expected batch/v1")
    need(job.get("kind") == "Job", f"{path}: kind {job.get('kind')!r}, expected Job")
    meta = fields(job.get("metadata", {}), "ObjectMeta", f"{path}: metadata")
    name = meta.get("name", "")
    need(isinstance(name, str) and len(name) <= 63 and DNS1123.match(name), f"{path}: name {name!r} is not DNS-1123")
    spec = fields(job.get("spec", {}), "JobSpec", f"{path}: spec")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    for key, v in (("completions", completions), ("parallelism", parallelism)):
        need(isinstance(v, int) and 1 <= v <= 100000, f"{path}: spec.{key} {v!r} is not an integer in 1..100000")
    if indexed:
        need(spec.get("completionMode") == "Indexed", f"{path}: spec.completionMode {spec.get('completionMode')!r}")
    else:
        need(spec.get("completionMode", "NonIndexed") == "NonIndexed", f"{path}: the merge is not a NonIndexed Job")
        need(completions == 1, f"{path}: the merge runs one pod, not {completions}")
    tmpl = fields(spec.get("template", {}), "PodTemplateSpec", f"{path}: spec.template")
    fields(tmpl.get("metadata", {}), "ObjectMeta", f"{path}: spec.template.metadata")
    pod = fields(tmpl.get("spec", {}), "PodSpec", f"{path}: spec.template.spec")
    need(pod.get("restartPolicy") in ("Never", "OnFailure"),
         f"{path}: restartPolicy {pod.get('restartPolicy')!r}: a Job's pods need Never or OnFailure")
    volumes = set()
    for i, v in enumerate(pod.get("volumes") or []):
        v = fields(v, "Volume", f"{path}: volumes[{i}]")
        volumes.add(v.get("name"))
        if "persistentVolumeClaim" in v:
            pvc = fields(v["persistentVolumeClaim"], "PersistentVolumeClaimVolumeSource", f"{path}: volumes[{i}].pvc")
            need(DNS1123.match(str(pvc.get("claimName", ""))), f"{path}: volumes[{i}]: no claimName")
    containers = pod.get("containers") or []
    need(len(containers) >= 1, f"{path}: no container")
    scripts = []
    for i, c in enumerate(containers):
        where = f"{path}: containers[{i}]"
        c = fields(c, "Container", where)
        need(c.get("name") and c.get("image"), f"{where}: a container needs a name and an image")
        mounts = c.get("volumeMounts") or []
        need(mounts, f"{where}: no volumeMount (the ranks and partials are on a shared volume)")
        for j, m in enumerate(mounts):
            m = fields(m, "VolumeMount", f"{where}.volumeMounts[{j}]")
            need(m.get("name") in volumes, f"{where}.volumeMounts[{j}]: no volume named {m.get('name')!r}")
            need(str(m.get("mountPath", "")).startswith("/"), f"{where}.volumeMounts[{j}]: mountPath not absolute")
        if "resources" in c:
            fields(c["resources"], "ResourceRequirements", f"{where}.resources")
        env = {}
        for j, e in enumerate(c.get("env") or []):
            e = fields(e, "EnvVar", f"{where}.env[{j}]")
            env[e.get("name")] = e
            if "valueFrom" in e:
                src = fields(e["valueFrom"], "EnvVarSource", f"{where}.env[{j}].valueFrom")
                if "fieldRef" in src:
                    fields(src["fieldRef"], "ObjectFieldSelector", f"{where}.env[{j}].valueFrom.fieldRef")
        if indexed:
            ref = env.get("JOB_COMPLETION_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
            need(ref == INDEX_FIELD, f"{where}: JOB_COMPLETION_INDEX is not the job-completion-index annotation")
        cmd = list(c.get("command") or []) + list(c.get("args") or [])
        need(all(isinstance(a, str) for a in cmd) and cmd, f"{where}: command and args must be strings")
        scripts.append(cmd)
    return completions or 0, scripts


map_path, merge_path = [a for a in sys.argv[1:] if a != "--run"]
n, map_cmds = check(map_path, indexed=True)
_, merge_cmds = check(merge_path, indexed=False)
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
if "--run" in sys.argv:
    for i in range(n):
        for cmd in map_cmds:
            subprocess.run(cmd, check=True, env={**os.environ, "JOB_COMPLETION_INDEX": str(i)})
    for cmd in merge_cmds:
        subprocess.run(cmd, check=True)
print(f"check_k8s_job.py: OK ({map_path}: Indexed Job of {n} completions; {merge_path}: one-pod Job)")
