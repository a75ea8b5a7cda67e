-- wrk script: POST the JSON body in the environment variable BODY to the given path.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
